import { Redis, type RedisOptions } from 'ioredis';

/**
 * A Redis connection for commands. BullMQ needs `maxRetriesPerRequest: null` on its own
 * connections; pass `forBullmq` for those. `failFastMs` is for producers that must never wait on
 * an unreachable Redis (the edge's log queue): commands fail at once while disconnected instead of
 * queueing, and any reply later than `failFastMs` fails the command. `commandTimeoutMs` bounds every
 * command (queued ones included) while keeping the offline queue: for request paths that fall back
 * on a Redis error, which must not wait for a reconnect that may take minutes.
 */
export function createRedis(
  url: string,
  opts: { forBullmq?: boolean; name?: string; failFastMs?: number; commandTimeoutMs?: number } = {},
): Redis {
  const options: RedisOptions = {
    lazyConnect: false,
    enableAutoPipelining: true,
    connectionName: opts.name,
    maxRetriesPerRequest: opts.forBullmq ? null : 2,
    ...(opts.commandTimeoutMs === undefined ? {} : { commandTimeout: opts.commandTimeoutMs }),
    ...(opts.failFastMs === undefined
      ? {}
      : { enableOfflineQueue: false, maxRetriesPerRequest: 0, commandTimeout: opts.failFastMs }),
  };
  return new Redis(url, options);
}
