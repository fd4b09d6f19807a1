import { type HeaderMap, type ProviderAdapter } from '../src/adapter.js';
import {
  chatRoute,
  completionsRoute,
  embeddingsRoute,
  openAIChatProvider,
  openAIContextExceeded,
  responsesRoute,
} from '../openai/index.js';
import { contentFilterError } from './content-filter.js';
import { azureEndpoint } from './endpoint.js';
import { azureRealtimeRoute } from './realtime-route.js';

/**
 * JSON both ways, and the key as Azure's `api-key` header. Without a key (Microsoft Entra ID) the
 * provider's credential adds `Authorization: Bearer` per request (#libs/credentials).
 */
export function azureHeaders(apiKey: string | undefined, _client: HeaderMap): Record<string, string> {
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' };
  if (apiKey) headers['api-key'] = apiKey;
  return headers;
}

/**
 * Provider type `azure-openai`: OpenAI's wire on Azure's URLs (a deployment per model, or the v1
 * path), so every OpenAI endpoint passes through natively and Messages and Gemini go through the
 * hub as for OpenAI. Azure's content filter refusals become the gateway's `content_filter`.
 */
export const azureOpenAIAdapter: ProviderAdapter = {
  native: {
    chat: chatRoute,
    completions: completionsRoute,
    responses: responsesRoute,
    embeddings: embeddingsRoute,
  },
  none: [],
  hubFormat: () => openAIChatProvider,
  upstreamHeaders: azureHeaders,
  endpoint: azureEndpoint,
  clientError: contentFilterError,
  contextExceeded: openAIContextExceeded,
  realtime: azureRealtimeRoute,
};
