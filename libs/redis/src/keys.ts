/**
 * Every Redis key, channel and TTL the gateway uses. No key string literal lives anywhere else.
 * The prefix isolates deployments and test runs; the hash tag keeps BullMQ's keys on one
 * cluster slot.
 */
export const TTL = {
  /** An api key record cached in Redis; Postgres stays the truth. */
  apiKeySeconds: 300,
  /** A console setup link stays valid this long (a new one is printed at each start while no admin exists). */
  setupTokenSeconds: 86_400,
} as const;

export interface RedisKeys {
  readonly prefix: string;
  /** Cached api key record (JSON of KeyRecord) by SHA-256 hex of the raw key. */
  apiKey(hash: string): string;
  /** Channel: a message is the hash of a key whose record changed (revoked, expired, regrouped). */
  readonly keyInvalidationChannel: string;
  /** The router's ranked route table (JSON of RouteTable). */
  readonly routes: string;
  /** Channel: the full RouteTable JSON, published on every change. */
  readonly routesChannel: string;
  /** Router replica lease: whoever holds it writes routes. */
  readonly routerLeader: string;
  /** Counter (INCR) giving each published RouteTable its version, monotonic across router leaders. */
  readonly routesVersion: string;
  /** Stream of passive samples from edges to the router: one entry (a JSON array) per edge flush. */
  readonly samplesStream: string;
  /** Sorted set of request ids holding a concurrency slot at a limited provider (score = lease expiry, ms). */
  providerInflight(providerId: string): string;
  /** Requests started at a limited provider in one minute window (INCR, expires after the window). */
  providerRpm(providerId: string, minute: number): string;
  /** Console session (JSON) by SHA-256 hex of the session id; expires after the idle TTL. */
  consoleSession(idHash: string): string;
  /** Set of a user's console session hashes, so disabling the user ends them all. */
  consoleUserSessions(userId: string): string;
  /** Failed console sign-ins in the current window, per email hash or per client IP (INCR + expiry). */
  consoleSignInFailures(kind: 'email' | 'ip', subject: string): string;
  /** A one-time console setup token by its SHA-256 hex; deleted when used. */
  consoleSetupToken(tokenHash: string): string;
  /** BullMQ prefix (hash-tagged for Redis Cluster). */
  readonly bullPrefix: string;
}

export function redisKeys(prefix: string): RedisKeys {
  return Object.freeze({
    prefix,
    apiKey: (hash: string) => `${prefix}:key:${hash}`,
    keyInvalidationChannel: `${prefix}:keys:invalidate`,
    routes: `${prefix}:routes`,
    routesChannel: `${prefix}:routes:changed`,
    routerLeader: `${prefix}:router:leader`,
    routesVersion: `${prefix}:routes:version`,
    samplesStream: `${prefix}:samples`,
    providerInflight: (providerId: string) => `${prefix}:limit:{${providerId}}:inflight`,
    providerRpm: (providerId: string, minute: number) => `${prefix}:limit:{${providerId}}:rpm:${minute}`,
    consoleSession: (idHash: string) => `${prefix}:console:session:${idHash}`,
    consoleUserSessions: (userId: string) => `${prefix}:console:user-sessions:${userId}`,
    consoleSignInFailures: (kind: 'email' | 'ip', subject: string) =>
      `${prefix}:console:sign-in-failures:${kind}:${subject}`,
    consoleSetupToken: (tokenHash: string) => `${prefix}:console:setup:${tokenHash}`,
    bullPrefix: `{${prefix}}:bull`,
  });
}
