import { defineProvider } from '../src/descriptor.js';
import { openAICompatibleAdapter } from './adapter.js';
import { compatibleSettings } from './settings.js';

/** Any server speaking OpenAI's chat-era API (DeepSeek, Groq, vLLM, Ollama), by vendor profile. */
export const openAICompatibleDescriptor = defineProvider({
  type: 'openai-compatible',
  label: 'OpenAI-compatible server',
  settings: compatibleSettings,
  baseUrl: 'required',
  probe: 'path',
  keys: true,
  adapter: openAICompatibleAdapter,
  // A named profile is a catalog provider; a generic server is found by its API's URL, if at all.
  catalog: (entry, model) => ({
    where:
      entry.vendor === undefined || entry.vendor === 'generic'
        ? { providerApiUrl: entry.base_url }
        : { providerId: entry.vendor },
    id: model,
    countsWebSearches: false,
  }),
  profile: (entry) => entry.vendor ?? 'generic',
  // Its type says nothing of the vendor: the profile names it, or else the provider's own id.
  genAiName: (entry) => (entry.vendor === undefined || entry.vendor === 'generic' ? entry.id : entry.vendor),
});
