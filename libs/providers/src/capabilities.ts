import { PROVIDER_TYPES, type ProviderType } from '#libs/config';
import { type ProviderFormat } from './translation.js';

/** The client-facing endpoints a model request can arrive on. */
export const CLIENT_ENDPOINTS = ['chat', 'completions', 'responses', 'embeddings', 'messages'] as const;
export type ClientEndpoint = (typeof CLIENT_ENDPOINTS)[number];

/**
 * How a provider serves one endpoint: `native` passes the body through (only the model changes),
 * `translated` goes client format -> hub -> the provider's hub format, `none` skips the provider.
 */
export type Serving = 'native' | 'translated' | 'none';

export interface ProviderCapabilities {
  /** Endpoints the provider's own API offers with the client's wire format. */
  readonly native: readonly ClientEndpoint[];
  /** Endpoints nothing can translate to this provider (embeddings have no hub). */
  readonly none: readonly ClientEndpoint[];
  /** The provider format the hub reaches it through for every other endpoint. */
  readonly hubFormat: ProviderFormat['name'];
}

/** One row per provider type; endpoints in neither list are served by translation. */
export const PROVIDER_CAPABILITIES: Readonly<Record<ProviderType, ProviderCapabilities>> = {
  openai: { native: ['chat', 'completions', 'responses', 'embeddings'], none: [], hubFormat: 'openai-chat' },
  // DeepSeek, Groq, vLLM, Ollama: the chat-era endpoints only; the Responses API is not common ground.
  'openai-compatible': { native: ['chat', 'completions', 'embeddings'], none: [], hubFormat: 'openai-chat' },
  // Perplexity offers chat completions only, and no embeddings model to translate to.
  perplexity: { native: ['chat'], none: ['embeddings'], hubFormat: 'openai-chat' },
  anthropic: { native: ['messages'], none: ['embeddings'], hubFormat: 'anthropic' },
};

export function servingFor(type: ProviderType, endpoint: ClientEndpoint): Serving {
  const row = PROVIDER_CAPABILITIES[type];
  if (row.native.includes(endpoint)) return 'native';
  return row.none.includes(endpoint) ? 'none' : 'translated';
}

/** The provider types that can serve an endpoint one way or the other. */
export function providerTypesServing(endpoint: ClientEndpoint): readonly ProviderType[] {
  return PROVIDER_TYPES.filter((type) => servingFor(type, endpoint) !== 'none');
}
