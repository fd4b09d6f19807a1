import { type HeaderMap, type ProviderAdapter } from '../src/adapter.js';
import { type ProviderFormat } from '../src/translation.js';
import { bedrockClientError, bedrockErrorMessage } from './mapping.js';
import { invokeMessagesRoute } from './native.js';
import { converseRequestOf } from './request.js';
import { hubCompletionOfConverse } from './response.js';
import { converseStreamToHub } from './stream.js';
import { converseWire } from './wire-format.js';

/** An OpenAI-format client (through the hub) served by Bedrock's Converse API, for any model. */
export const converseProvider: ProviderFormat = {
  name: 'bedrock-converse',
  wire: converseWire,
  fromHub: converseRequestOf,
  toHub: hubCompletionOfConverse,
  streamToHub: converseStreamToHub,
  errorMessage: bedrockErrorMessage,
};

/**
 * Provider type `bedrock`: Messages natively through InvokeModel (Anthropic models), every other
 * client API but embeddings through the hub to Converse. The auth is a SigV4 signature (or a
 * Bedrock API key as a bearer token) over the whole request, applied at send time by the
 * provider's credential (#libs/credentials); the headers here are the content's only, so the
 * signature covers what is sent. With a static key (`api_key_env`) it is the bearer token.
 */
export const bedrockAdapter: ProviderAdapter = {
  native: { messages: invokeMessagesRoute },
  none: ['embeddings'],
  hubFormat: () => converseProvider,
  upstreamHeaders(apiKey: string | undefined, _client: HeaderMap): Record<string, string> {
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      accept: 'application/json',
    };
    if (apiKey) headers.authorization = `Bearer ${apiKey}`;
    return headers;
  },
  clientError: bedrockClientError,
};
