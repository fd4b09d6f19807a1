import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { Catalog, type CatalogSnapshot } from '#libs/config';
import { type BreakerState } from '#libs/routing';
import { ATTR, telemetry } from '#libs/telemetry';
import { PassiveHealth } from '../samples/passive-health.service.js';
import { CATALOG } from '../tokens.js';

/** Gauge values of the breaker phases: higher is worse, so max() across replicas reads right. */
export const BREAKER_VALUE: Readonly<Record<BreakerState['phase'], number>> = {
  closed: 0,
  half_open: 1,
  open: 2,
};

/**
 * `gateway.router.breaker.state` per configured (provider, model), read from the health book when
 * metrics are collected. Only the leader folds samples, so a follower reports every breaker
 * closed; dashboards take the max across router replicas.
 */
@Injectable()
export class BreakerGauge implements OnApplicationBootstrap, OnApplicationShutdown {
  private stop: (() => void) | null = null;
  private pairs: ReadonlyArray<{ providerId: string; model: string; attrs: Record<string, string> }> = [];

  constructor(
    @Inject(CATALOG) catalog: Catalog,
    private readonly health: PassiveHealth,
  ) {
    this.track(catalog.snapshot());
    catalog.onChange((next) => this.track(next));
  }

  private track(catalog: CatalogSnapshot): void {
    this.pairs = [...catalog.providers.values()]
      .filter((p) => p.disabledReason === null)
      .flatMap((p) =>
        p.models.map((m) => ({
          providerId: p.id,
          model: m.id,
          attrs: { [ATTR.providerId]: p.id, [ATTR.requestModel]: m.id },
        })),
      );
  }

  onApplicationBootstrap(): void {
    const metrics = telemetry().metrics;
    if (!metrics.enabled) return;
    this.stop = metrics.observe('breakerState', (observe) => {
      const now = Date.now();
      for (const { providerId, model, attrs } of this.pairs) {
        const phase = this.health.get(providerId, model, now)?.breaker.phase ?? 'closed';
        observe(BREAKER_VALUE[phase], attrs);
      }
    });
  }

  onApplicationShutdown(): void {
    this.stop?.();
  }
}
