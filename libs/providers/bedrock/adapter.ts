import { type HeaderMap, type ProviderAdapter } from '../src/adapter.js';
import { type ProviderFormat } from '../src/translation.js';
import { isAnthropicModel } from './endpoint.js';
import { bedrockClientError, bedrockErrorMessage, bedrockRefusalReason } from './mapping.js';
import { invokeMessagesRoute } from './native.js';
import { bedrockProbeUrl } from './probe.js';
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

const base = {
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
  refusalReason: bedrockRefusalReason,
  probeUrl: bedrockProbeUrl,
} satisfies Omit<ProviderAdapter, 'native'>;

/** Claude on Bedrock: Messages natively through InvokeModel, every other client API through Converse. */
export const bedrockClaudeAdapter: ProviderAdapter = { ...base, native: { messages: invokeMessagesRoute } };

/** Any other Bedrock model (Nova, Llama, Mistral...): every client API through Converse. */
export const bedrockConverseAdapter: ProviderAdapter = { ...base, native: {} };

/**
 * Provider type `bedrock`, per model: Claude (an Anthropic model ID, an inference profile of one)
 * takes Messages natively through InvokeModel, any other model everything through Converse;
 * embeddings are refused. The auth is a SigV4 signature over the whole request, applied at send
 * time by the provider's credential (#libs/credentials), or a Bedrock API key as a bearer token
 * (`api_key_env`); the headers here are the content's, so the signature covers what is sent.
 */
export const bedrockAdapter: ProviderAdapter = {
  ...bedrockClaudeAdapter,
  models: {
    of: (upstreamModel) => (isAnthropicModel(upstreamModel) ? bedrockClaudeAdapter : bedrockConverseAdapter),
    byLabel: { Claude: bedrockClaudeAdapter, 'other models': bedrockConverseAdapter },
  },
};
