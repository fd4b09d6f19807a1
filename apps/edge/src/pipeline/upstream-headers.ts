import { type IncomingHttpHeaders } from 'node:http';
import { type ProviderRuntime } from '#libs/config';
import { openai } from '#libs/providers';

/** The API version the gateway speaks to Anthropic when the client does not name one. */
export const ANTHROPIC_VERSION = '2023-06-01';

/**
 * The provider's own auth, plus the vendor headers that change behaviour, when the client sent
 * them and the provider is of that vendor (`anthropic-version`, `anthropic-beta`; `OpenAI-Beta`).
 * Nothing else of the client's passes: its key is the gateway's, not the provider's.
 */
export function upstreamHeaders(
  provider: ProviderRuntime,
  client: IncomingHttpHeaders,
): Record<string, string> {
  if (provider.type === 'anthropic') {
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      accept: 'application/json',
      'anthropic-version': headerValue(client['anthropic-version']) ?? ANTHROPIC_VERSION,
    };
    if (provider.apiKey) headers['x-api-key'] = provider.apiKey;
    const beta = headerValue(client['anthropic-beta']);
    if (beta !== undefined) headers['anthropic-beta'] = beta;
    return headers;
  }
  const headers = openai.openAIHeaders(provider.apiKey);
  const beta = headerValue(client['openai-beta']);
  if (beta !== undefined) headers['openai-beta'] = beta;
  return headers;
}

const headerValue = (v: string | string[] | undefined): string | undefined =>
  Array.isArray(v) ? v.join(',') : v;
