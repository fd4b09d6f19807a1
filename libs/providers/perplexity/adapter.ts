import { type ProviderAdapter } from '../src/adapter.js';
import { modelOnlyChatRoute, openAIContextExceeded, openAIUpstreamHeaders } from '../openai/index.js';
import { perplexityProvider } from './provider.js';

/** Provider type `perplexity`: chat completions only, and no embeddings model to translate to. */
export const perplexityAdapter: ProviderAdapter = {
  native: { chat: modelOnlyChatRoute },
  none: ['embeddings'],
  hubFormat: () => perplexityProvider,
  upstreamHeaders: openAIUpstreamHeaders,
  contextExceeded: openAIContextExceeded,
};
