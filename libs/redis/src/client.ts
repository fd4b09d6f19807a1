import { Redis, type RedisOptions } from 'ioredis';

/**
 * A Redis connection for commands. BullMQ needs `maxRetriesPerRequest: null` on its own
 * connections; pass `forBullmq` for those.
 */
export function createRedis(url: string, opts: { forBullmq?: boolean; name?: string } = {}): Redis {
  const options: RedisOptions = {
    lazyConnect: false,
    enableAutoPipelining: true,
    connectionName: opts.name,
    maxRetriesPerRequest: opts.forBullmq ? null : 2,
  };
  return new Redis(url, options);
}
