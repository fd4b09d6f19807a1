import { type HeaderMap, type ProviderAdapter } from '../src/adapter.js';
import { type ClientFormat, type ProviderFormat } from '../src/translation.js';
import { hubRequestOfMessages } from './client-request.js';
import { messageOfCompletion } from './client-response.js';
import { messagesStreamFromHub } from './client-stream.js';
import { anthropicContextExceeded } from './context-window.js';
import { ANTHROPIC_VERSION } from './endpoint.js';
import { countTokensRoute, messagesRoute } from './native.js';
import { anthropicRequestOf } from './request.js';
import { anthropicErrorMessage, hubCompletionOf } from './response.js';
import { anthropicStreamToHub } from './stream.js';
import { messagesWire } from './wire-format.js';

/** An OpenAI-format client (through the hub) served by an Anthropic Messages provider. */
export const anthropicProvider: ProviderFormat = {
  name: 'anthropic',
  wire: messagesWire,
  fromHub: anthropicRequestOf,
  toHub: hubCompletionOf,
  streamToHub: anthropicStreamToHub,
  errorMessage: anthropicErrorMessage,
};

/** A client speaking Anthropic Messages (its SDK), served through the hub by another format. */
export const messagesClient: ClientFormat = {
  name: 'messages',
  vendorHeaders: ['anthropic-beta'],
  toHub: hubRequestOfMessages,
  fromHub: messageOfCompletion,
  streamFromHub: messagesStreamFromHub,
};

/**
 * Provider type `anthropic`: Messages and token counting natively, everything else but embeddings
 * through the hub. The client's `anthropic-version` and `anthropic-beta` pass (they select the
 * API's behaviour); the gateway pins the version when the client names none.
 */
export const anthropicAdapter: ProviderAdapter = {
  native: { messages: messagesRoute, count_tokens: countTokensRoute },
  none: ['embeddings'],
  hubFormat: () => anthropicProvider,
  contextExceeded: anthropicContextExceeded,
  upstreamHeaders(apiKey: string | undefined, client: HeaderMap): Record<string, string> {
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      accept: 'application/json',
      'anthropic-version': headerValue(client['anthropic-version']) ?? ANTHROPIC_VERSION,
    };
    if (apiKey) headers['x-api-key'] = apiKey;
    const beta = headerValue(client['anthropic-beta']);
    if (beta !== undefined) headers['anthropic-beta'] = beta;
    return headers;
  },
};

const headerValue = (v: string | string[] | undefined): string | undefined =>
  Array.isArray(v) ? v.join(',') : v;
