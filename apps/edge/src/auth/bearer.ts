import { type IncomingHttpHeaders } from 'node:http';
import { bearerToken } from '#libs/auth';

/** The raw key from `Authorization: Bearer ...`, or from `x-api-key` (the Anthropic SDK's default). */
export function apiKeyFromHeaders(headers: IncomingHttpHeaders, allowXApiKey: boolean): string | null {
  const auth = headers.authorization;
  if (auth !== undefined) return bearerToken(auth);
  if (allowXApiKey) {
    const key = headers['x-api-key'];
    if (typeof key === 'string') return key;
  }
  return null;
}
