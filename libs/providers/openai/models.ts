import { type ModelsApi } from '../src/adapter.js';

/** OpenAI's Models API: `{object: 'list', data: [{id, object: 'model', created, owned_by}]}`. */
export const openAIModelsApi: ModelsApi = {
  keySources: ['authorization'],
  list: (models) => ({ object: 'list', data: models.map(openAIModelsApi.one) }),
  one: (m) => ({ id: m.id, object: 'model', created: m.created, owned_by: m.owned_by }),
};
