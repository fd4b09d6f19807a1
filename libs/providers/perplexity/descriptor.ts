import { defineProvider } from '../src/descriptor.js';
import { perplexityAdapter } from './adapter.js';

/** Perplexity's Sonar API: OpenAI's chat wire with search results, a fee per request. */
export const perplexityDescriptor = defineProvider({
  type: 'perplexity',
  label: 'Perplexity',
  settings: {},
  baseUrl: 'required',
  probe: 'path',
  keys: true,
  adapter: perplexityAdapter,
  // Its usage counts the searches it ran (`num_search_queries`).
  catalog: (_entry, model) => ({ where: { providerId: 'perplexity' }, id: model, countsWebSearches: true }),
  genAiName: () => 'perplexity',
});
