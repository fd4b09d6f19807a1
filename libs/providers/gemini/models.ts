import { type ModelsApi } from '../src/adapter.js';

/**
 * Google's `GET /v1beta/models`: `{models: [{name: 'models/<id>', ...}]}`, no `nextPageToken`
 * (the whole list is one page). The catalog has neither display names nor token limits: the id
 * stands for the name, and the limits are left out (every field of Google's Model is optional).
 */
export const geminiModelsApi: ModelsApi = {
  keySources: ['x-goog-api-key', 'key-query', 'authorization'],
  list: (models) => ({ models: models.map(geminiModelsApi.one) }),
  one: (m) => ({
    name: `models/${m.id}`,
    baseModelId: m.id,
    displayName: m.id,
    supportedGenerationMethods: ['generateContent', 'streamGenerateContent', 'countTokens'],
  }),
};
