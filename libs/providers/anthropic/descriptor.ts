import { defineProvider } from '../src/descriptor.js';
import { anthropicAdapter } from './adapter.js';

/** Anthropic's API: Messages native, the rest through the hub. */
export const anthropicDescriptor = defineProvider({
  type: 'anthropic',
  label: 'Anthropic',
  settings: {},
  baseUrl: 'required',
  probe: 'path',
  keys: true,
  adapter: anthropicAdapter,
  // Its usage counts the web searches its server tool ran (`server_tool_use`).
  catalog: (_entry, model) => ({ where: { providerId: 'anthropic' }, id: model, countsWebSearches: true }),
  genAiName: () => 'anthropic',
});
