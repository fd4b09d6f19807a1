import { Cluster, type ClusterOptions, Redis, type RedisOptions } from 'ioredis';
import { type RedisClusterSeeds, clusterSeeds, type RedisTarget } from '#libs/config';

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
}

function nodeOptions(opts: RedisConnectionOptions): RedisOptions {
  return {
    enableAutoPipelining: true,
    connectionName: opts.name,
    maxRetriesPerRequest: opts.forBullmq ? null : 2,
    ...(opts.commandTimeoutMs === undefined ? {} : { commandTimeout: opts.commandTimeoutMs }),
    ...(opts.failFastMs === undefined
      ? {}
      : { enableOfflineQueue: false, maxRetriesPerRequest: 0, commandTimeout: opts.failFastMs }),
  };
}

function clusterOptions(seeds: RedisClusterSeeds, opts: RedisConnectionOptions): ClusterOptions {
  const { enableOfflineQueue, enableAutoPipelining, ...perNode } = nodeOptions(opts);
  return {
    enableAutoPipelining,
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
  const t = typeof target === 'string' ? { url: target, cluster: false } : target;
  if (t.cluster) {
    const seeds = clusterSeeds(t.url);
    return new Cluster(seeds.nodes.slice(), clusterOptions(seeds, opts));
  }
  return new Redis(t.url, { lazyConnect: false, ...nodeOptions(opts) });
}

/**
 * A second connection to the same Redis with the same settings, for subscribers and blocking
 * reads (which take a connection to themselves), but no command bound: they wait by nature, and a
 * new connection's first reply under load can come later than a request path's bound (the edge's
 * 500 ms kept it from starting). On a Cluster, pub/sub messages reach every node, so a subscriber
 * on any node hears every PUBLISH.
 */
export function duplicateRedis(
  client: RedisClient,
  name: string,
  extra: Partial<RedisOptions> = {},
): RedisClient {
  if (client instanceof Cluster) {
    const { enableAutoPipelining, ...perNode } = extra;
    return client.duplicate(undefined, {
      ...client.options,
      ...(enableAutoPipelining === undefined ? {} : { enableAutoPipelining }),
      redisOptions: {
        ...client.options.redisOptions,
        commandTimeout: undefined,
        ...perNode,
        connectionName: name,
      },
    });
  }
  return client.duplicate({ commandTimeout: undefined, ...extra, connectionName: name });
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
