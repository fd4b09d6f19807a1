import { Inject, Injectable, Logger } from '@nestjs/common';
import { Catalog } from '#libs/config';
import { applyProbeOutcome, type ProviderHealth, type RouteTable } from '#libs/routing';
import { CATALOG } from '../tokens.js';
import { ProbeClient } from './probe.client.js';

/** Provider health as this replica's probes see it. Only the leader probes, so only its view is published. */
@Injectable()
export class HealthTracker {
  private readonly logger = new Logger(HealthTracker.name);
  private health = new Map<string, ProviderHealth>();

  constructor(
    @Inject(CATALOG) private readonly catalog: Catalog,
    private readonly probes: ProbeClient,
  ) {}

  current(): ReadonlyMap<string, ProviderHealth> {
    return this.health;
  }

  /**
   * Starts over from the probe 'down' verdicts of the table a predecessor published, so a new leader does
   * not flap those providers up for one cycle; everything else starts unprobed.
   */
  reset(published: RouteTable | null): void {
    const downAfter = this.catalog.config.router.down_after_failures;
    const seeded = new Map<string, ProviderHealth>();
    for (const candidates of Object.values(published?.models ?? {})) {
      for (const c of candidates) {
        // Only probe verdicts: a breaker or a rate limit belonged to the old leader's passive stats.
        if (
          c.state !== 'down' ||
          !c.reason.startsWith('probe') ||
          seeded.has(c.providerId) ||
          !this.catalog.providers.has(c.providerId)
        )
          continue;
        seeded.set(c.providerId, {
          state: 'down',
          reason: c.reason,
          consecutiveFailures: downAfter,
          checkedAt: 0,
          latencyMs: null,
        });
      }
    }
    this.health = seeded;
  }

  /** Probes every enabled provider concurrently and folds the outcomes in. Never throws. */
  async probeAll(): Promise<void> {
    const enabled = [...this.catalog.providers.values()].filter((p) => p.disabledReason === null);
    const outcomes = await Promise.all(enabled.map((p) => this.probes.probe(p)));
    const now = Date.now();
    const downAfter = this.catalog.config.router.down_after_failures;
    enabled.forEach((provider, i) => {
      const prev = this.health.get(provider.id);
      const next = applyProbeOutcome(prev, outcomes[i]!, downAfter, now);
      if (prev ? prev.state !== next.state : next.state === 'down') {
        this.logger.warn(
          `provider ${provider.id}: ${prev?.state ?? 'unprobed'} -> ${next.state} (${next.reason})`,
        );
      }
      this.health.set(provider.id, next);
    });
  }
}
