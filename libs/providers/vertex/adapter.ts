import { anthropicContextExceeded } from '../anthropic/index.js';
import { geminiContextExceeded } from '../gemini/index.js';
import { type ClientApiName, type HeaderMap, type ProviderAdapter } from '../src/adapter.js';
import { isVertexEmbeddingModel, vertexEmbeddingsRoute } from './embeddings.js';
import { publisherOf, type VertexPublisher, vertexEndpoint } from './endpoint.js';
import { frontEndRequestError } from './mapping.js';
import {
  vertexClaudeCountTokensRoute,
  vertexCountTokensRoute,
  vertexGenerateContentRoute,
  vertexMessagesRoute,
} from './native.js';
import { vertexAnthropicProvider, vertexGeminiProvider } from './provider.js';

const JSON_HEADERS = { 'content-type': 'application/json', accept: 'application/json' } as const;

/**
 * JSON both ways; no key: the provider's credential (Google's Application Default Credentials,
 * #libs/credentials) adds `Authorization: Bearer` per request.
 */
function geminiHeaders(): Record<string, string> {
  return { ...JSON_HEADERS };
}

/**
 * As for Gemini, plus the client's `anthropic-beta` (Vertex passes Anthropic's beta features on).
 * The client's `anthropic-version` does not pass: Vertex takes its own version in the body.
 */
function anthropicHeaders(_apiKey: string | undefined, client: HeaderMap): Record<string, string> {
  const headers: Record<string, string> = { ...JSON_HEADERS };
  const beta = client['anthropic-beta'];
  if (beta !== undefined) headers['anthropic-beta'] = Array.isArray(beta) ? beta.join(',') : beta;
  return headers;
}

/**
 * Gemini models on Vertex AI (`publishers/google`): generateContent and countTokens natively,
 * every other text API through the Gemini translators; embeddings are the embedding models'.
 */
export const vertexGeminiAdapter: ProviderAdapter = {
  native: { generate_content: vertexGenerateContentRoute, count_content_tokens: vertexCountTokensRoute },
  none: ['embeddings'],
  hubFormat: () => vertexGeminiProvider,
  upstreamHeaders: geminiHeaders,
  endpoint: vertexEndpoint,
  contextExceeded: geminiContextExceeded,
};

/**
 * Claude models on Vertex AI (`publishers/anthropic`): Messages and token counting natively,
 * every other text API through the Anthropic translators; no embeddings (as type `anthropic`).
 * Request errors Vertex's front end answers in Google's shape are rendered in the client's.
 */
export const vertexAnthropicAdapter: ProviderAdapter = {
  native: { messages: vertexMessagesRoute, count_tokens: vertexClaudeCountTokensRoute },
  none: ['embeddings'],
  hubFormat: () => vertexAnthropicProvider,
  upstreamHeaders: anthropicHeaders,
  endpoint: vertexEndpoint,
  clientError: frontEndRequestError,
  // Claude's own refusal passes through Vertex in Anthropic's shape and words.
  contextExceeded: anthropicContextExceeded,
};

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
 * Google's text embedding models (`text-embedding-005`, `gemini-embedding-001`...): OpenAI
 * embeddings clients through `predict` (`vertexEmbeddingsRoute`), nothing else. Its hub format is
 * never reached (every hub API is `none`); it reads Google's error bodies for the edge.
 */
export const vertexEmbeddingsAdapter: ProviderAdapter = {
  native: {},
  direct: { embeddings: vertexEmbeddingsRoute },
  none: TEXT_APIS,
  hubFormat: () => vertexGeminiProvider,
  upstreamHeaders: geminiHeaders,
  endpoint: vertexEndpoint,
  clientError: frontEndRequestError,
};

/** The adapter of each publisher the `vertex` type serves. */
export const VERTEX_PUBLISHER_ADAPTERS: Readonly<Record<VertexPublisher, ProviderAdapter>> = {
  google: vertexGeminiAdapter,
  anthropic: vertexAnthropicAdapter,
};

/**
 * The adapter of one upstream model of a `vertex` provider: a text embedding model's, else its
 * publisher's (`publisherOf`).
 */
export function vertexAdapterOf(upstreamModel: string): ProviderAdapter {
  if (isVertexEmbeddingModel(upstreamModel)) return vertexEmbeddingsAdapter;
  return VERTEX_PUBLISHER_ADAPTERS[publisherOf(upstreamModel)];
}

/**
 * Provider type `vertex`: Google Cloud Vertex AI. Each model is served through its own adapter
 * (`vertexAdapterOf`: a text embedding model the embeddings one, Claude models Anthropic's, every
 * other Google's); the type's own members are the Gemini adapter's (the probe's headers and URL,
 * which name no model).
 */
export const vertexAdapter: ProviderAdapter = {
  ...vertexGeminiAdapter,
  models: {
    of: vertexAdapterOf,
    byLabel: {
      Gemini: vertexGeminiAdapter,
      Claude: vertexAnthropicAdapter,
      'embedding models': vertexEmbeddingsAdapter,
    },
  },
};
