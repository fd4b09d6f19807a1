import { defineProvider } from '../src/descriptor.js';
import { openAIAdapter } from './adapter.js';

/** OpenAI's API: a key, a base URL, every OpenAI endpoint native. */
export const openAIDescriptor = defineProvider({
  type: 'openai',
  label: 'OpenAI',
  settings: {},
  baseUrl: 'required',
  probe: 'path',
  keys: true,
  adapter: openAIAdapter,
  catalog: (_entry, model) => ({ where: { providerId: 'openai' }, id: model, countsWebSearches: false }),
  genAiName: () => 'openai',
});
