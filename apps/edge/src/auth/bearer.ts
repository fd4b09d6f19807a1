import { type IncomingHttpHeaders } from 'node:http';
import { bearerToken } from '#libs/auth';
import { type KeySource } from '#libs/providers';

/** Where most SDKs put the key: `Authorization: Bearer ...`, or an `x-api-key` header. */
export const BEARER_OR_X_API_KEY: readonly KeySource[] = ['authorization', 'x-api-key'];

/**
 * The raw key from the first of `sources` the request carries: a bearer token, a key header, or
 * the `key` query parameter (some vendors' URLs). The first source present decides, so a
 * malformed `Authorization` is not rescued by another header.
 */
export function apiKeyOf(
  headers: IncomingHttpHeaders,
  query: unknown,
  sources: readonly KeySource[],
): string | null {
  for (const source of sources) {
    switch (source) {
      case 'authorization':
        if (headers.authorization !== undefined) return bearerToken(headers.authorization);
        break;
      case 'x-api-key':
      case 'x-goog-api-key': {
        const key = headers[source];
        if (typeof key === 'string') return key;
        break;
      }
      case 'key-query': {
        const key = (query as { key?: unknown } | null | undefined)?.key;
        if (typeof key === 'string') return key;
        break;
      }
    }
  }
  return null;
}
