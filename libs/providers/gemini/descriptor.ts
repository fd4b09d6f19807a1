import { defineProvider } from '../src/descriptor.js';
import { geminiAdapter } from './adapter.js';

/** Google's Gemini API (AI Studio keys): generateContent native, the rest through the hub. */
export const geminiDescriptor = defineProvider({
  type: 'gemini',
  label: 'Gemini API',
  settings: {},
  baseUrl: 'required',
  probe: 'path',
  keys: true,
  adapter: geminiAdapter,
  catalog: (_entry, model) => ({ where: { providerId: 'google' }, id: model, countsWebSearches: false }),
  // The GenAI conventions' well-known name.
  genAiName: () => 'gcp.gemini',
});
