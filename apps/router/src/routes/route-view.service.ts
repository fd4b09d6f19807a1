import { Inject, Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { type RedisClient, type RedisKeys } from '#libs/redis';
import { type RouteTable } from '#libs/routing';
import { RouteTableWatcher } from '#libs/routing-stores';
import { REDIS, REDIS_KEYS } from '../tokens.js';

/**
 * The table as published in Redis, seen the way edges see it. Every replica has one: followers
 * serve GET /routes from it, and a new leader starts from the states its predecessor published.
 */
@Injectable()
export class RouteView implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger(RouteView.name);
  private readonly watcher: RouteTableWatcher;

  constructor(@Inject(REDIS) redis: RedisClient, @Inject(REDIS_KEYS) keys: RedisKeys) {
    this.watcher = new RouteTableWatcher(redis, keys, { warn: (m) => this.logger.warn(m) });
  }

  async onModuleInit(): Promise<void> {
    await this.watcher.start();
  }

  async onModuleDestroy(): Promise<void> {
    await this.watcher.stop();
  }

  current(): RouteTable | null {
    return this.watcher.current();
  }
}
