import { Inject, Injectable } from '@nestjs/common';
import { type RedisClient, type RedisKeys } from '#libs/redis';
import { type RouteTable } from '#libs/routing';
import { publishRouteTable } from '#libs/routing-stores';
import { REDIS, REDIS_KEYS } from '../tokens.js';

/**
 * INCR, but never below the given floor (now in ms). Versions grow across leaders through the shared
 * counter, and if Redis loses the counter (restart without persistence, flush) the next version
 * still exceeds every earlier one, which edges holding an old table would otherwise ignore forever.
 */
const NEXT_VERSION = `
local v = redis.call('INCR', KEYS[1])
local floor = tonumber(ARGV[1])
if v < floor then
  redis.call('SET', KEYS[1], ARGV[1])
  return floor
end
return v`;

/** The router's writes to Redis. */
@Injectable()
export class RoutesStore {
  constructor(
    @Inject(REDIS) private readonly redis: RedisClient,
    @Inject(REDIS_KEYS) private readonly keys: RedisKeys,
  ) {}

  async nextVersion(now = Date.now()): Promise<number> {
    return Number(await this.redis.eval(NEXT_VERSION, 1, this.keys.routesVersion, now));
  }

  publish(table: RouteTable): Promise<void> {
    return publishRouteTable(this.redis, this.keys, table);
  }
}
