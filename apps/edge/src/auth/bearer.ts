import { type IncomingHttpHeaders } from 'node:http';

/** The raw key from `Authorization: Bearer ...`, or from `x-api-key` (the Anthropic SDK's default). */
export function apiKeyFromHeaders(headers: IncomingHttpHeaders, allowXApiKey: boolean): string | null {
  const auth = headers.authorization;
  if (auth !== undefined) {
    if (auth.length > 7 && auth.slice(0, 7).toLowerCase() === 'bearer ') return auth.slice(7);
    return null;
  }
  if (allowXApiKey) {
    const key = headers['x-api-key'];
    if (typeof key === 'string') return key;
  }
  return null;
}
