import { type HeaderMap, type ProviderAdapter } from '../src/adapter.js';
import { openAIContextExceeded } from './context-window.js';
import { chatRoute, completionsRoute, embeddingsRoute, responsesRoute } from './native.js';
import { openAIChatProvider } from './provider.js';
import { openAIRealtimeRoute } from './realtime-route.js';

/** JSON both ways, and the key as a bearer token (none for a local server that takes no key). */
export function openAIHeaders(apiKey: string | undefined): Record<string, string> {
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' };
  if (apiKey) headers.authorization = `Bearer ${apiKey}`;
  return headers;
}

/** Bearer auth, plus the client's `OpenAI-Beta` (it selects API behaviour, e.g. the Assistants version). */
export function openAIUpstreamHeaders(apiKey: string | undefined, client: HeaderMap): Record<string, string> {
  const headers = openAIHeaders(apiKey);
  const beta = client['openai-beta'];
  if (beta !== undefined) headers['openai-beta'] = Array.isArray(beta) ? beta.join(',') : beta;
  return headers;
}

/** Provider type `openai`: every OpenAI endpoint natively; Messages through the hub. */
export const openAIAdapter: ProviderAdapter = {
  native: {
    chat: chatRoute,
    completions: completionsRoute,
    responses: responsesRoute,
    embeddings: embeddingsRoute,
  },
  none: [],
  hubFormat: () => openAIChatProvider,
  upstreamHeaders: openAIUpstreamHeaders,
  contextExceeded: openAIContextExceeded,
  realtime: openAIRealtimeRoute,
};
