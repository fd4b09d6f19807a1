import { type ClientApiName, type HeaderMap, type ProviderAdapter } from '../src/adapter.js';
import { type ProviderFormat } from '../src/translation.js';
import { bedrockEmbeddingsRoute, isBedrockEmbeddingModel } from './embeddings.js';
import { bedrockContextExceeded } from './context-window.js';
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
  contextExceeded: bedrockContextExceeded,
  refusalReason: bedrockRefusalReason,
  probeUrl: bedrockProbeUrl,
} satisfies Omit<ProviderAdapter, 'native'>;

/** Claude on Bedrock: Messages natively through InvokeModel, every other client API through Converse. */
export const bedrockClaudeAdapter: ProviderAdapter = { ...base, native: { messages: invokeMessagesRoute } };

/** Any other Bedrock model (Nova, Llama, Mistral...): every client API through Converse; no embeddings. */
export const bedrockConverseAdapter: ProviderAdapter = { ...base, native: {} };

/** Every client API but embeddings: an embedding model generates no text. */
const TEXT_APIS: readonly ClientApiName[] = [
  'chat',
  'completions',
  'responses',
  'messages',
  'count_tokens',
  'generate_content',
  'count_content_tokens',
];

/**
 * A text embedding model (Titan Text Embeddings V2, Cohere Embed v3): OpenAI embeddings clients
 * through InvokeModel with the model's own body (`bedrockEmbeddingsRoute`), nothing else.
 */
export const bedrockEmbeddingsAdapter: ProviderAdapter = {
  ...base,
  native: {},
  direct: { embeddings: bedrockEmbeddingsRoute },
  none: TEXT_APIS,
};

function adapterOfModel(upstreamModel: string): ProviderAdapter {
  if (isBedrockEmbeddingModel(upstreamModel)) return bedrockEmbeddingsAdapter;
  return isAnthropicModel(upstreamModel) ? bedrockClaudeAdapter : bedrockConverseAdapter;
}

/**
 * Provider type `bedrock`, per model: Claude (an Anthropic model ID, an inference profile of one)
 * takes Messages natively through InvokeModel, a text embedding model embeddings through
 * InvokeModel, any other model everything through Converse. The auth is a SigV4 signature over
 * the whole request, applied at send time by the provider's credential (#libs/credentials), or a
 * Bedrock API key as a bearer token (`api_key_env`); the headers here are the content's, so the
 * signature covers what is sent.
 */
export const bedrockAdapter: ProviderAdapter = {
  ...bedrockClaudeAdapter,
  models: {
    of: adapterOfModel,
    byLabel: {
      Claude: bedrockClaudeAdapter,
      'other models': bedrockConverseAdapter,
      'embedding models': bedrockEmbeddingsAdapter,
    },
  },
};
