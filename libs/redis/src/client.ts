import { Cluster, type ClusterOptions, Redis, type RedisOptions } from 'ioredis';
import { type RedisClusterSeeds, clusterSeeds, type RedisTarget } from '#libs/config';
import { installCompactCommands } from './compact-commands.js';
import { redisOutages } from './outage-log.js';
import { coalesceWrites } from './write-coalescing.js';

/** A connection to one Redis server or to a Redis Cluster: the gateway's code runs on either. */
export type RedisClient = Redis | Cluster;

export interface RedisConnectionOptions {
  /** BullMQ needs `maxRetriesPerRequest: null` on its own connections. */
  readonly forBullmq?: boolean;
  readonly name?: string;
  /**
   * For producers that must never wait on an unreachable Redis (the edge's log queue): commands
   * fail at once while disconnected instead of queueing, and any reply later than this fails.
   */
  readonly failFastMs?: number;
  /**
   * Bounds every command (queued ones included) while keeping the offline queue: for request
   * paths that fall back on a Redis error and must not wait for a reconnect that may take minutes.
   */
  readonly commandTimeoutMs?: number;
  /**
   * With `commandTimeoutMs`: once a connect or reconnect attempt has failed, commands fail at once
   * instead of queueing until it is ready again, so a request path pays nothing for a Redis that
   * is known to be down (each call would otherwise wait out the timeout). One server only: a
   * Cluster keeps its queue, bounded by `commandTimeoutMs`.
   */
  readonly failFastWhileDown?: boolean;
}

function nodeOptions(opts: RedisConnectionOptions): RedisOptions {
  return {
    // Off for one server, where write-coalescing.ts batches a turn's commands into one write
    // without auto-pipelining's Pipeline objects (see there).
    enableAutoPipelining: false,
    connectionName: opts.name,
    maxRetriesPerRequest: opts.forBullmq ? null : 2,
    ...(opts.commandTimeoutMs === undefined ? {} : { commandTimeout: opts.commandTimeoutMs }),
    ...(opts.failFastMs === undefined
      ? {}
      : { enableOfflineQueue: false, maxRetriesPerRequest: 0, commandTimeout: opts.failFastMs }),
  };
}

function clusterOptions(seeds: RedisClusterSeeds, opts: RedisConnectionOptions): ClusterOptions {
  const { enableOfflineQueue, enableAutoPipelining: _, ...perNode } = nodeOptions(opts);
  return {
    // On for a Cluster: without it a command issued before the slots are known waits in the
    // cluster's queue past commandTimeoutMs (a per-node bound), for as long as discovery fails.
    enableAutoPipelining: true,
    enableOfflineQueue: enableOfflineQueue ?? true,
    // Every read goes to the primary: quota and rate-limit state must never be read stale.
    scaleReads: 'master',
    redisOptions: {
      ...perNode,
      username: seeds.username,
      password: seeds.password,
      ...(seeds.tls ? { tls: {} } : {}),
    },
    // Managed TLS clusters (ElastiCache, Memorystore) sign certificates for the host names they
    // announce: resolving them to IPs first would fail the certificate check.
    ...(seeds.tls ? { dnsLookup: (address, callback) => callback(null, address) } : {}),
  };
}

/** A connection for commands to `target`; a plain URL string is one server (tests and tools). */
export function createRedis(target: string, opts?: RedisConnectionOptions): Redis;
export function createRedis(target: RedisTarget | string, opts?: RedisConnectionOptions): RedisClient;
export function createRedis(target: RedisTarget | string, opts: RedisConnectionOptions = {}): RedisClient {
  // Commands written as one Buffer each, not strings built piece by piece (see there).
  installCompactCommands();
  const t = typeof target === 'string' ? { url: target, cluster: false } : target;
  const name = opts.name ?? 'redis';
  if (t.cluster) {
    const seeds = clusterSeeds(t.url);
    const cluster = new Cluster(seeds.nodes.slice(), clusterOptions(seeds, opts));
    redisOutages.watch(cluster, name);
    return cluster;
  }
  const client = new Redis(t.url, { lazyConnect: false, ...nodeOptions(opts) });
  coalesceWrites(client);
  redisOutages.watch(client, name);
  if (opts.failFastWhileDown) failFastWhileDown(client);
  return client;
}

/** Commands queue before the first connect and while a reconnect has not failed yet, never after. */
function failFastWhileDown(client: Redis): void {
  client.on('error', () => (client.options.enableOfflineQueue = false));
  client.on('ready', () => (client.options.enableOfflineQueue = true));
}

/**
 * A second connection to the same Redis with the same settings, for subscribers and blocking
 * reads (which take a connection to themselves), but no command bound: they wait by nature, and a
 * new connection's first reply under load can come later than a request path's bound (the edge's
 * 500 ms kept it from starting). On a Cluster, pub/sub messages reach every node, so a subscriber
 * on any node hears every PUBLISH. A subscriber that must outlast an outage passes
 * `maxRetriesPerRequest: null` (ioredis resubscribes only what was subscribed, so a SUBSCRIBE that
 * gave up while Redis was down is never renewed); a loop that awaits its reads must not, since a
 * command queued without a limit is never settled by disconnect() while the client reconnects.
 */
export function duplicateRedis(
  client: RedisClient,
  name: string,
  extra: Partial<RedisOptions> = {},
): RedisClient {
  const waiting = { commandTimeout: undefined, enableOfflineQueue: true };
  let copy: RedisClient;
  if (client instanceof Cluster) {
    const { enableAutoPipelining, ...perNode } = extra;
    copy = client.duplicate(undefined, {
      ...client.options,
      ...(enableAutoPipelining === undefined ? {} : { enableAutoPipelining }),
      enableOfflineQueue: true,
      redisOptions: { ...client.options.redisOptions, ...waiting, ...perNode, connectionName: name },
    });
  } else {
    copy = client.duplicate({ ...waiting, ...extra, connectionName: name });
  }
  redisOutages.watch(copy, name);
  return copy;
}

/**
 * Every key matching `pattern`, in pages. SCAN walks one server: on a Cluster it walks each
 * primary, since each holds its own slots.
 */
export async function* scanKeys(client: RedisClient, pattern: string, count = 500): AsyncGenerator<string[]> {
  const servers = client instanceof Cluster ? client.nodes('master') : [client];
  for (const server of servers) {
    let cursor = '0';
    do {
      const [next, keys] = await server.scan(cursor, 'MATCH', pattern, 'COUNT', count);
      cursor = next;
      if (keys.length > 0) yield keys;
    } while (cursor !== '0');
  }
}

/**
 * Deletes keys one by one (pipelined): a multi-key DEL must keep to one Cluster slot, and keys
 * found by a scan rarely do.
 */
export async function deleteKeys(client: RedisClient, keys: readonly string[]): Promise<void> {
  await Promise.all(keys.map((k) => client.unlink(k)));
}

/** Deletes every key matching one of `patterns` (on a Cluster, from every primary); how many. */
export async function deleteMatching(
  client: RedisClient,
  patterns: readonly string[],
  count = 500,
): Promise<number> {
  let deleted = 0;
  for (const pattern of patterns) {
    for await (const keys of scanKeys(client, pattern, count)) {
      await deleteKeys(client, keys);
      deleted += keys.length;
    }
  }
  return deleted;
}
