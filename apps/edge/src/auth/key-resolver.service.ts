import { Inject, Injectable, Logger, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import {
  fillCachedKey,
  hashApiKey,
  isKeyUsable,
  isWellFormedApiKey,
  type KeyRecord,
  readCachedKey,
} from '#libs/auth';
import { type GatewayConfig } from '#libs/config';
import { GatewayError } from '#libs/protocol';
import { duplicateRedis, FailureRun, type RedisClient, type RedisKeys, TTL } from '#libs/redis';
import { CONFIG, REDIS, REDIS_KEYS } from '../tokens.js';
import { ExpiringLru } from './lru.js';

/** Postgres lookup by key hash; injected so the resolver stays free of SQL. */
export const KEY_LOOKUP = Symbol('KeyLookup');
export type KeyLookup = (hash: string) => Promise<KeyRecord | null>;

/** Unknown keys are remembered briefly too, so a flood of bad keys never reaches Postgres. */
const NEGATIVE_TTL_SECONDS = 30;
const NOT_FOUND = 'none';
const MAX_CACHED_KEYS = 100_000;
/** Fills overtaken by an invalidation are redone; a key invalidated this often in a row gets a 503. */
const MAX_FILL_ATTEMPTS = 3;

const invalidKey = (): GatewayError => new GatewayError('invalid_api_key', 'Invalid API key provided.');
const unavailable = (): GatewayError =>
  new GatewayError('auth_unavailable', 'API keys cannot be checked right now; retry shortly.', {
    retryAfterSeconds: 1,
  });

/**
 * Key records this process just read from Postgres because the Redis key cache had none: no edge
 * used the key lately, so its account is most likely cold too. The quota gate loads such an
 * account's balance at once instead of first asking Redis for a lease that would only find none
 * (a round trip and a script call saved on a cold key's first request; a warm account's new key
 * pays a load that finds the balance loaded and grants the lease in the same call).
 */
const fromPostgres = new WeakSet<KeyRecord>();

/** Whether the record was just read from Postgres; true once per record (its first admission). */
export function takeFromPostgres(record: KeyRecord): boolean {
  return fromPostgres.delete(record);
}

/** A load in flight; `stale` once an invalidation of its key arrived before it finished. */
interface Fill {
  stale: boolean;
  record: Promise<KeyRecord | null>;
}

/**
 * Resolves a raw key to its record: process memory, then Redis, then Postgres (filling Redis).
 * Invalidations arrive on a pub/sub channel, so a revoked key stops working on every edge within
 * the channel's latency rather than the cache TTL. A fill cannot resurrect a revoked key: in
 * Redis it writes only if the key's generation is unchanged since before Postgres was read, and
 * in memory an invalidation (or a resubscription) arriving during the fill makes it stale, so it
 * is neither cached nor served, and the request resolves again.
 */
@Injectable()
export class KeyResolver implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger(KeyResolver.name);
  /** Fails on every memory miss while Redis is down: told once per run of failures. */
  private readonly cacheReads = new FailureRun(this.logger, 'key cache read (asking Postgres)');
  private readonly cache = new ExpiringLru<KeyRecord | null>(MAX_CACHED_KEYS);
  private readonly inflight = new Map<string, Fill>();
  private subscriber: RedisClient | null = null;
  private subscribing: Promise<void> | null = null;
  private markSubscribed!: () => void;
  private readonly firstSubscription = new Promise<void>((resolve) => (this.markSubscribed = resolve));
  hits = 0;
  misses = 0;
  /** Memory misses answered by Redis, and those that went on to Postgres (telemetry reads these). */
  redisHits = 0;
  redisMisses = 0;
  /** Invalidation messages heard. */
  invalidations = 0;

  constructor(
    @Inject(REDIS) private readonly redis: RedisClient,
    @Inject(REDIS_KEYS) private readonly keys: RedisKeys,
    @Inject(KEY_LOOKUP) private readonly lookup: KeyLookup,
    @Inject(CONFIG) private readonly config: GatewayConfig,
  ) {}

  /** Does not wait for Redis: the edge starts (and answers from Postgres) while Redis is unreachable. */
  onModuleInit(): void {
    const sub = duplicateRedis(this.redis, 'edge-key-invalidation');
    this.subscriber = sub;
    sub.on('message', (_channel: string, hash: string) => this.invalidate(hash));
    // Messages sent while disconnected are lost: forget everything rather than serve a revoked key.
    sub.on('ready', () => {
      this.forgetAll();
      this.subscribe(sub);
    });
    // Its connection errors, one per reconnect attempt, are logged once per outage by duplicateRedis.
    this.subscribe(sub);
  }

  /** Resolves once the invalidation channel was first subscribed (tests and readiness wait on it). */
  subscribed(): Promise<void> {
    return this.firstSubscription;
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
      record = await this.resolve(hash);
    } else {
      this.hits++;
    }
    if (record === null || !isKeyUsable(record, now)) throw invalidKey();
    return record;
  }

  /**
   * A subscribe that failed (Redis unreachable past the retries) is not resubscribed by ioredis:
   * it is tried again at the next 'ready'. Everything cached before the subscription took effect
   * may have missed an invalidation, so it is forgotten then.
   */
  private subscribe(sub: RedisClient): void {
    if (this.subscribing) return;
    this.subscribing = sub.subscribe(this.keys.keyInvalidationChannel).then(
      () => {
        this.forgetAll();
        this.markSubscribed();
      },
      (err: Error) => {
        this.subscribing = null;
        this.logger.warn(`key invalidation channel not subscribed yet: ${err.message}`);
      },
    );
  }

  private invalidate(hash: string): void {
    this.invalidations++;
    this.cache.delete(hash);
    const fill = this.inflight.get(hash);
    if (fill) {
      fill.stale = true;
      this.inflight.delete(hash);
    }
    for (const listener of this.invalidationListeners) listener(hash);
  }

  private readonly invalidationListeners = new Set<(hash: string) => void>();

  /**
   * Told the hash of each key invalidated (revoked, disabled, edited), once the key left the
   * caches: what outlives one request (a WebSocket session) checks its key again. Returns the
   * function that stops the telling.
   */
  onInvalidation(listener: (hash: string) => void): () => void {
    this.invalidationListeners.add(listener);
    return () => this.invalidationListeners.delete(listener);
  }

  private forgetAll(): void {
    this.cache.clear();
    for (const fill of this.inflight.values()) fill.stale = true;
    this.inflight.clear();
  }

  private async resolve(hash: string): Promise<KeyRecord | null> {
    for (let attempt = 1; ; attempt++) {
      const fill = this.fill(hash);
      const record = await fill.record;
      if (!fill.stale) return record;
      if (attempt >= MAX_FILL_ATTEMPTS) throw unavailable();
    }
  }

  /** Concurrent misses for one key share one fill. */
  private fill(hash: string): Fill {
    const running = this.inflight.get(hash);
    if (running) return running;
    const fill: Fill = { stale: false, record: Promise.resolve(null) };
    fill.record = this.load(hash)
      .then((record) => {
        if (!fill.stale) this.cache.set(hash, record, Date.now() + this.config.edge.key_cache_ttl_ms);
        return record;
      })
      .finally(() => {
        if (this.inflight.get(hash) === fill) this.inflight.delete(hash);
      });
    this.inflight.set(hash, fill);
    return fill;
  }

  /** Redis is only the fast copy: when it fails, Postgres answers and the request goes on. */
  private async load(hash: string): Promise<KeyRecord | null> {
    const cached = await readCachedKey(this.redis, this.keys, hash).then(
      (read) => {
        this.cacheReads.succeeded();
        return read;
      },
      (err: Error) => {
        this.cacheReads.failed(err);
        return undefined;
      },
    );
    if (cached?.value != null) {
      this.redisHits++;
      return cached.value === NOT_FOUND ? null : (JSON.parse(cached.value) as KeyRecord);
    }
    this.redisMisses++;
    const record = await this.lookup(hash).catch((err: Error) => {
      this.logger.warn(`key lookup failed: ${err.message}`);
      throw unavailable();
    });
    if (record) fromPostgres.add(record);
    if (cached) {
      const value = record ? JSON.stringify(record) : NOT_FOUND;
      const ttlSeconds = record ? TTL.apiKeySeconds : NEGATIVE_TTL_SECONDS;
      // Not waited for: the request has its record, and the fill's generation check stands alone
      // (an invalidation after the read makes it write nothing). One Redis round trip less on a
      // cold key's first request.
      void fillCachedKey(this.redis, this.keys, hash, {
        generation: cached.generation,
        value,
        ttlSeconds,
      }).catch(() => undefined);
    }
    return record;
  }
}
