import { Inject, Injectable } from '@nestjs/common';
import { Redis } from 'ioredis';
import { type RedisKeys } from '#libs/redis';
import { publishRouteTable, type RouteTable } from '#libs/routing';
import { REDIS, REDIS_KEYS } from '../tokens.js';

/** The router's writes to Redis: versions from one shared counter, so they grow across leaders. */
@Injectable()
export class RoutesStore {
  constructor(
    @Inject(REDIS) private readonly redis: Redis,
    @Inject(REDIS_KEYS) private readonly keys: RedisKeys,
  ) {}

  nextVersion(): Promise<number> {
    return this.redis.incr(this.keys.routesVersion);
  }

  publish(table: RouteTable): Promise<void> {
    return publishRouteTable(this.redis, this.keys, table);
  }
}
