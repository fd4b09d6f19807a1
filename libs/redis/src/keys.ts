/**
 * Every Redis key, channel and TTL the gateway uses. No key string literal lives anywhere else.
 * The prefix isolates deployments and test runs; the hash tag keeps BullMQ's keys on one
 * cluster slot.
 */
export const TTL = {
  /** An api key record cached in Redis; Postgres stays the truth. */
  apiKeySeconds: 300,
  /**
   * A key's invalidation generation outlives any cache fill in flight (a fill that read it before
   * it expired would otherwise see "absent" again and write a stale copy).
   */
  apiKeyGenerationSeconds: 86_400,
  /** A console setup link stays valid this long (a new one is printed at each start while no admin exists). */
  setupTokenSeconds: 86_400,
} as const;

export interface RedisKeys {
  readonly prefix: string;
  /** SCAN patterns that together match every key of the prefix, BullMQ's hash-tagged ones included. */
  readonly allKeys: readonly string[];
  /** Cached api key record (JSON of KeyRecord) by SHA-256 hex of the raw key; tagged `{<hash>}`. */
  apiKey(hash: string): string;
  /**
   * Counter (INCR) bumped with every invalidation of the key, in the slot of `apiKey(hash)`: a cache
   * fill writes its copy only if the generation it read before asking Postgres is unchanged.
   */
  apiKeyGeneration(hash: string): string;
  /** Channel: a message is the hash of a key whose record changed (revoked, expired, regrouped). */
  readonly keyInvalidationChannel: string;
  /** The router's ranked route table (JSON of RouteTable). */
  readonly routes: string;
  /** Channel: the full RouteTable JSON, published on every change. */
  readonly routesChannel: string;
  /**
   * Channel: a configuration version number, published after each change is saved in Postgres
   * (which stays the truth: every app also polls the newest version, so a lost notice only delays).
   */
  readonly configChannel: string;
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
  /** Provider tests a console caller sent in the current window (INCR + expiry), per user or token. */
  consoleProviderTests(caller: string): string;
  /** A one-time console setup token by its SHA-256 hex; deleted when used. */
  consoleSetupToken(tokenHash: string): string;
  /** An OIDC sign-in under way (PKCE verifier, nonce) by the SHA-256 hex of its state; deleted when used. */
  consoleOidcPending(stateHash: string): string;
  /** BullMQ prefix (hash-tagged for Redis Cluster). */
  readonly bullPrefix: string;
  /**
   * Quota and rate-limit state of one user, all tagged `{<userId>}` so the edge's admission and
   * settle scripts touch one Cluster slot (docs/quota.md). Balance available to the edge, in
   * nanocredits (the durable balance minus charges not yet settled in Postgres); absent = not loaded.
   */
  quotaBalance(userId: string): string;
  /** Hash: key id -> nanocredits that key spent (durable + unsettled). */
  quotaKeySpent(userId: string): string;
  /** Hash: request id -> `<cost>:<ms>:<key id>` of a charge the edge made and Postgres may not hold yet. */
  quotaPending(userId: string): string;
  /** Hash: lease id -> what an edge holds of the account's headroom and until when (docs/quota.md, Leases). */
  quotaLeases(userId: string): string;
  /**
   * Nanocredits charged in one bucket of a budget's window (INCRBY; expires a day after the bucket
   * stops counting, never for lifetime budgets); the bucket is its start in ms (docs/quota.md).
   */
  quotaBudgetSpent(userId: string, budgetId: string, bucketMs: number): string;
  /** Requests (`rpm`) or tokens (`tpm`) of one key in one minute window (INCRBY, expires after it). */
  keyRate(userId: string, keyId: string, metric: 'rpm' | 'tpm', minute: number): string;
  /** The same for the user's use of one group (group limits hold per user of the group). */
  groupRate(userId: string, group: string, metric: 'rpm' | 'tpm', minute: number): string;
  /** Sorted set: edge instance id -> ms of its last heartbeat; the worker's list of edges to look at. */
  readonly edges: string;
  /** An edge instance's heartbeat, refreshed on a timer with a TTL (`cut_streams.heartbeat_ttl_ms`). */
  edgeAlive(instance: string): string;
  /** Hash: request id -> JSON StreamMarker of a stream the edge started and has not logged yet. */
  edgeStreams(instance: string): string;
}

export function redisKeys(prefix: string): RedisKeys {
  return Object.freeze({
    prefix,
    allKeys: Object.freeze([`${prefix}:*`, `{${prefix}}:*`]),
    apiKey: (hash: string) => `${prefix}:key:{${hash}}`,
    apiKeyGeneration: (hash: string) => `${prefix}:key:{${hash}}:generation`,
    keyInvalidationChannel: `${prefix}:keys:invalidate`,
    routes: `${prefix}:routes`,
    routesChannel: `${prefix}:routes:changed`,
    configChannel: `${prefix}:config:changed`,
    routerLeader: `${prefix}:router:leader`,
    routesVersion: `${prefix}:routes:version`,
    samplesStream: `${prefix}:samples`,
    providerInflight: (providerId: string) => `${prefix}:limit:{${providerId}}:inflight`,
    providerRpm: (providerId: string, minute: number) => `${prefix}:limit:{${providerId}}:rpm:${minute}`,
    consoleSession: (idHash: string) => `${prefix}:console:session:${idHash}`,
    consoleUserSessions: (userId: string) => `${prefix}:console:user-sessions:${userId}`,
    consoleSignInFailures: (kind: 'email' | 'ip', subject: string) =>
      `${prefix}:console:sign-in-failures:${kind}:${subject}`,
    consoleProviderTests: (caller: string) => `${prefix}:console:provider-tests:${caller}`,
    consoleSetupToken: (tokenHash: string) => `${prefix}:console:setup:${tokenHash}`,
    consoleOidcPending: (stateHash: string) => `${prefix}:console:oidc-pending:${stateHash}`,
    bullPrefix: `{${prefix}}:bull`,
    quotaBalance: (userId: string) => `${prefix}:quota:{${userId}}:balance`,
    quotaKeySpent: (userId: string) => `${prefix}:quota:{${userId}}:key-spent`,
    quotaPending: (userId: string) => `${prefix}:quota:{${userId}}:pending`,
    quotaLeases: (userId: string) => `${prefix}:quota:{${userId}}:leases`,
    quotaBudgetSpent: (userId: string, budgetId: string, bucketMs: number) =>
      `${prefix}:quota:{${userId}}:budget:${budgetId}:${bucketMs}`,
    keyRate: (userId: string, keyId: string, metric: 'rpm' | 'tpm', minute: number) =>
      `${prefix}:rate:{${userId}}:key:${keyId}:${metric}:${minute}`,
    groupRate: (userId: string, group: string, metric: 'rpm' | 'tpm', minute: number) =>
      `${prefix}:rate:{${userId}}:group:${group}:${metric}:${minute}`,
    edges: `${prefix}:edges`,
    edgeAlive: (instance: string) => `${prefix}:edge:{${instance}}:alive`,
    edgeStreams: (instance: string) => `${prefix}:edge:{${instance}}:streams`,
  });
}
