import { type ProviderAdapter } from '../src/adapter.js';
import {
  chatRoute,
  compatibleContextExceeded,
  completionsRoute,
  embeddingsRoute,
  openAIUpstreamHeaders,
} from '../openai/index.js';
import { openAICompatibleFormats } from './compatible.js';
import { COMPATIBLE_VENDORS, type CompatibleVendor } from './settings.js';

const isVendor = (v: unknown): v is CompatibleVendor =>
  typeof v === 'string' && (COMPATIBLE_VENDORS as readonly string[]).includes(v);

/**
 * Provider type `openai-compatible` (DeepSeek, Groq, vLLM, Ollama): the chat-era endpoints only,
 * since the Responses API is not common ground; translated requests follow the vendor profile.
 */
export const openAICompatibleAdapter: ProviderAdapter = {
  native: { chat: chatRoute, completions: completionsRoute, embeddings: embeddingsRoute },
  none: [],
  hubFormat: (settings) => {
    const { vendor } = settings as { vendor?: unknown };
    return openAICompatibleFormats[isVendor(vendor) ? vendor : 'generic'];
  },
  upstreamHeaders: openAIUpstreamHeaders,
  contextExceeded: compatibleContextExceeded,
};
