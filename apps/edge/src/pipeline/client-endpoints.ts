import { type ProviderType } from '#libs/config';
import { type ClientFormat, type ClientEndpoint as EndpointName, servingFor } from '#libs/providers';
import {
  type NativeEndpoint,
  nativeChat,
  nativeCompletions,
  nativeCountTokens,
  nativeEmbeddings,
  nativeMessages,
  nativePerplexityChat,
  nativeResponses,
} from './native-endpoints.js';
import { clientFormats, type ClientFormatName, providerFormats } from './formats.js';

/**
 * One client-facing endpoint: what it passes through natively to providers of its own wire
 * format, and which client translator (if any) carries it through the hub to the others.
 */
export interface ClientEndpoint {
  /** Its name in the capability table (`PROVIDER_CAPABILITIES`). */
  readonly name: EndpointName;
  /** The route, also the log row's `endpoint`. */
  readonly route: string;
  /** Whose conventions the client expects: key header, error shape, stream error event. */
  readonly vendor: 'openai' | 'anthropic';
  readonly streams: boolean;
  readonly native: NativeEndpoint;
  /** A provider type whose native endpoint differs in a detail (Perplexity's chat). */
  readonly nativeByType: Partial<Record<ProviderType, NativeEndpoint>>;
  /** The client translator for providers of other formats; null when only native works. */
  readonly hub: ClientFormat | null;
}

/** How a provider of this type serves the endpoint here: the capability table, limited to translators wired in. */
export function servingOf(endpoint: ClientEndpoint, type: ProviderType): 'native' | 'translated' | 'none' {
  const serving = servingFor(type, endpoint.name);
  if (serving !== 'translated') return serving;
  return endpoint.hub !== null && providerFormats[type] !== undefined ? 'translated' : 'none';
}

const endpoint = (
  name: EndpointName,
  route: string,
  vendor: ClientEndpoint['vendor'],
  native: NativeEndpoint,
  hub: ClientFormatName | null,
  nativeByType: ClientEndpoint['nativeByType'] = {},
): ClientEndpoint => ({
  name,
  route,
  vendor,
  streams: native.streamFormat !== null,
  native,
  nativeByType,
  hub: hub === null ? null : (clientFormats[hub] ?? null),
});

export const chatEndpoint = endpoint('chat', '/v1/chat/completions', 'openai', nativeChat, 'chat', {
  perplexity: nativePerplexityChat,
});
export const completionsEndpoint = endpoint(
  'completions',
  '/v1/completions',
  'openai',
  nativeCompletions,
  'completions',
);
export const responsesEndpoint = endpoint(
  'responses',
  '/v1/responses',
  'openai',
  nativeResponses,
  'responses',
);
export const embeddingsEndpoint = endpoint('embeddings', '/v1/embeddings', 'openai', nativeEmbeddings, null);
export const messagesEndpoint = endpoint('messages', '/v1/messages', 'anthropic', nativeMessages, 'messages');

/**
 * Token counting goes upstream only to providers that speak Messages natively (the capability
 * table's `messages` row, without a translator); the edge counts locally for the others.
 */
export const countTokensEndpoint = endpoint(
  'messages',
  '/v1/messages/count_tokens',
  'anthropic',
  nativeCountTokens,
  null,
);
