import { type IncomingHttpHeaders } from 'node:http';
import { type ClientApi, type JsonObject } from '#libs/providers';
import { sessionHash } from '#libs/routing';

/**
 * Longest session key taken. Agents' ids are UUIDs or a short JSON of ids (under 200 characters);
 * a longer value is not hashed at length on every request: it names no session, and the request
 * routes as one without.
 */
export const MAX_SESSION_KEY_CHARS = 512;

/**
 * Headers that name an agent session whatever API it speaks: opencode sends both on every
 * request, `x-session-affinity` so that a proxy keeps the session on one backend.
 */
const SESSION_HEADERS = ['x-session-affinity', 'x-session-id'] as const;

/**
 * The hash of the agent session a request belongs to (its API's own fields first, then the
 * neutral headers), or null when it names none. Only the hash leaves here: the key itself is
 * never stored or logged.
 */
export function requestSession(
  api: ClientApi,
  body: JsonObject,
  headers: IncomingHttpHeaders,
): number | null {
  const key = usable(api.session?.(body, headers)) ?? usable(sessionHeader(headers));
  return key === undefined ? null : sessionHash(key);
}

function sessionHeader(headers: IncomingHttpHeaders): string | undefined {
  for (const name of SESSION_HEADERS) {
    const value = headers[name];
    if (typeof value === 'string' && value !== '') return value;
  }
  return undefined;
}

function usable(key: string | undefined): string | undefined {
  return key !== undefined && key.length > 0 && key.length <= MAX_SESSION_KEY_CHARS ? key : undefined;
}
