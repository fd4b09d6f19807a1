import { Inject, Injectable, Logger, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { hashApiKey, isKeyUsable, isWellFormedApiKey, type KeyRecord } from '#libs/auth';
import { type GatewayConfig } from '#libs/config';
import { GatewayError } from '#libs/protocol';
import { duplicateRedis, type RedisClient, type RedisKeys, TTL } from '#libs/redis';
import { CONFIG, REDIS, REDIS_KEYS } from '../tokens.js';
import { ExpiringLru } from './lru.js';

/** Postgres lookup by key hash; injected so the resolver stays free of SQL. */
export const KEY_LOOKUP = Symbol('KeyLookup');
export type KeyLookup = (hash: string) => Promise<KeyRecord | null>;

/** Unknown keys are remembered briefly too, so a flood of bad keys never reaches Postgres. */
const NEGATIVE_TTL_SECONDS = 30;
const NOT_FOUND = 'none';
const MAX_CACHED_KEYS = 100_000;

const invalidKey = (): GatewayError => new GatewayError('invalid_api_key', 'Invalid API key provided.');

/**
 * Resolves a raw key to its record: process memory, then Redis, then Postgres (filling Redis).
 * Invalidations arrive on a pub/sub channel, so a revoked key stops working on every edge within
 * the channel's latency rather than the cache TTL.
 */
@Injectable()
export class KeyResolver implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger(KeyResolver.name);
  private readonly cache = new ExpiringLru<KeyRecord | null>(MAX_CACHED_KEYS);
  private readonly inflight = new Map<string, Promise<KeyRecord | null>>();
  private subscriber: RedisClient | null = null;
  hits = 0;
  misses = 0;
  /** Memory misses answered by Redis, and those that went on to Postgres (telemetry reads these). */
  redisHits = 0;
  redisMisses = 0;

  constructor(
    @Inject(REDIS) private readonly redis: RedisClient,
    @Inject(REDIS_KEYS) private readonly keys: RedisKeys,
    @Inject(KEY_LOOKUP) private readonly lookup: KeyLookup,
    @Inject(CONFIG) private readonly config: GatewayConfig,
  ) {}

  async onModuleInit(): Promise<void> {
    const sub = duplicateRedis(this.redis, 'edge-key-invalidation');
    this.subscriber = sub;
    sub.on('message', (_channel: string, hash: string) => this.cache.delete(hash));
    // Messages sent while disconnected are lost: forget everything rather than serve a revoked key.
    sub.on('ready', () => this.cache.clear());
    sub.on('error', (err: Error) => this.logger.warn(`key invalidation channel: ${err.message}`));
    await sub.subscribe(this.keys.keyInvalidationChannel);
  }

  async onApplicationShutdown(): Promise<void> {
    this.subscriber?.disconnect();
  }

  /** The usable key record for a raw key, or throws invalid_api_key. Never logs the key. */
  async authenticate(raw: string | null): Promise<KeyRecord> {
    if (raw === null || !isWellFormedApiKey(raw)) throw invalidKey();
    const hash = hashApiKey(raw);
    const now = Date.now();
    let record = this.cache.get(hash, now);
    if (record === undefined) {
      this.misses++;
      record = await this.fill(hash);
    } else {
      this.hits++;
    }
    if (record === null || !isKeyUsable(record, now)) throw invalidKey();
    return record;
  }

  private fill(hash: string): Promise<KeyRecord | null> {
    let pending = this.inflight.get(hash);
    if (!pending) {
      pending = this.load(hash).finally(() => this.inflight.delete(hash));
      this.inflight.set(hash, pending);
    }
    return pending;
  }

  /** Redis is only the fast copy: when it fails, Postgres answers and the request goes on. */
  private async load(hash: string): Promise<KeyRecord | null> {
    const redisKey = this.keys.apiKey(hash);
    const cached = await this.redis.get(redisKey).catch((err: Error) => {
      this.logger.warn(`key cache read failed, asking Postgres: ${err.message}`);
      return undefined;
    });
    let record: KeyRecord | null;
    if (typeof cached === 'string') {
      this.redisHits++;
      record = cached === NOT_FOUND ? null : (JSON.parse(cached) as KeyRecord);
    } else {
      this.redisMisses++;
      record = await this.lookup(hash);
      if (cached === null) {
        const ttl = record ? TTL.apiKeySeconds : NEGATIVE_TTL_SECONDS;
        await this.redis
          .set(redisKey, record ? JSON.stringify(record) : NOT_FOUND, 'EX', ttl)
          .catch(() => undefined);
      }
    }
    this.cache.set(hash, record, Date.now() + this.config.edge.key_cache_ttl_ms);
    return record;
  }
}
