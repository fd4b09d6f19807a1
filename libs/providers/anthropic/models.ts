import { type ModelsApi } from '../src/adapter.js';

/**
 * Anthropic's Models API: `{type, id, display_name, created_at}` objects, the cursor fields naming
 * the page's ends. The catalog has no display names, so clients see the id there too.
 */
export const anthropicModelsApi: ModelsApi = {
  keySources: ['authorization', 'x-api-key'],
  list: (models) => ({
    data: models.map(anthropicModelsApi.one),
    has_more: false,
    first_id: models[0]?.id ?? null,
    last_id: models.at(-1)?.id ?? null,
  }),
  one: (m) => ({ type: 'model', id: m.id, display_name: m.id, created_at: rfc3339(m.created) }),
};

/** Unix seconds as Anthropic writes times (`2025-02-19T00:00:00Z`: no fraction). */
const rfc3339 = (seconds: number): string => new Date(seconds * 1000).toISOString().replace('.000Z', 'Z');
