import { Inject, Injectable, Logger } from '@nestjs/common';
import { type Catalog, type CatalogSnapshot, type GatewayConfig } from '#libs/config';
import { type RedisClient, type RedisKeys } from '#libs/redis';
import {
  acquireProviderSlot,
  type ProviderLimits,
  releaseProviderSlot,
  type SlotResult,
} from '#libs/routing-stores';
import { CATALOG, CONFIG, REDIS, REDIS_KEYS } from '../tokens.js';

/**
 * Provider limits (`providers[].limits`) honoured across every edge, through one Redis script per
 * attempt. Providers without limits are not in the map and pay nothing: `acquire` returns null
 * without a promise.
 */
@Injectable()
export class ProviderLimiter {
  private readonly logger = new Logger(ProviderLimiter.name);
  private readonly limits = new Map<string, ProviderLimits>();
  private readonly leaseMs: number;

  constructor(
    @Inject(REDIS) private readonly redis: RedisClient,
    @Inject(REDIS_KEYS) private readonly keys: RedisKeys,
    @Inject(CATALOG) catalog: Catalog,
    @Inject(CONFIG) config: GatewayConfig,
  ) {
    this.build(catalog.snapshot());
    catalog.onChange((next) => this.build(next));
    // A slot outlives no request: past the total timeout its holder is gone (crashed edge).
    this.leaseMs = config.routing.total_timeout_ms;
  }

  private build(catalog: CatalogSnapshot): void {
    this.limits.clear();
    for (const p of catalog.providers.values())
      if (p.limits && (p.limits.max_concurrency || p.limits.rpm)) this.limits.set(p.id, p.limits);
  }

  /** null: the provider is unlimited. Redis failing lets the request through (the provider's own limits remain). */
  acquire(providerId: string, leaseId: string): Promise<SlotResult> | null {
    const limits = this.limits.get(providerId);
    if (limits === undefined) return null;
    return acquireProviderSlot(this.redis, this.keys, providerId, limits, leaseId, this.leaseMs).catch(
      (err: Error): SlotResult => {
        this.logger.warn(`provider limits unavailable, not enforced: ${err.message}`);
        return { ok: true };
      },
    );
  }

  release(providerId: string, leaseId: string): void {
    if (!this.limits.get(providerId)?.max_concurrency) return;
    releaseProviderSlot(this.redis, this.keys, providerId, leaseId).catch((err: Error) =>
      this.logger.warn(`provider slot not released (its lease expires): ${err.message}`),
    );
  }
}
