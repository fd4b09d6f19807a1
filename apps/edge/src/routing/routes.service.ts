import { Inject, Injectable, Logger, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { type Redis } from 'ioredis';
import { type Catalog } from '#libs/config';
import { type RedisKeys } from '#libs/redis';
import {
  buildRouteTable,
  type RouteCandidate,
  type RouteTable,
  RouteTableWatcher,
  selectCandidates,
} from '#libs/routing';
import { CATALOG, REDIS, REDIS_KEYS } from '../tokens.js';

/**
 * The edge's in-memory view of the router's ranked routes, kept fresh by pub/sub. Until the router
 * has published once, the edge routes on the config alone (every enabled provider assumed up), so
 * an edge never refuses traffic just because it started first.
 */
@Injectable()
export class RoutesService implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger(RoutesService.name);
  private readonly watcher: RouteTableWatcher;
  private readonly bootstrap: RouteTable;

  constructor(
    @Inject(REDIS) redis: Redis,
    @Inject(REDIS_KEYS) keys: RedisKeys,
    @Inject(CATALOG) catalog: Catalog,
  ) {
    this.watcher = new RouteTableWatcher(redis, keys);
    this.bootstrap = buildRouteTable(catalog, new Map(), 0, new Date());
  }

  async onModuleInit(): Promise<void> {
    await this.watcher.start();
    if (!this.watcher.current())
      this.logger.warn('no route table published yet: routing on config until the router publishes');
  }

  async onApplicationShutdown(): Promise<void> {
    await this.watcher.stop();
  }

  table(): RouteTable {
    return this.watcher.current() ?? this.bootstrap;
  }

  /** Candidates to try, in order. */
  candidates(model: string): RouteCandidate[] {
    return selectCandidates(this.table(), model);
  }

  /** For the health endpoint: where the view comes from and how old it is. */
  status(): { source: 'router' | 'config'; version: number; ageMs: number | null } {
    const current = this.watcher.current();
    if (!current) return { source: 'config', version: 0, ageMs: null };
    return { source: 'router', version: current.version, ageMs: Date.now() - this.watcher.lastUpdate() };
  }
}
