import { Inject, Injectable, Logger } from '@nestjs/common';
import { Catalog } from '#libs/config';
import { recordableText } from '#libs/protocol';
import {
  applyProbeOutcome,
  applyRefusal,
  type ProviderHealth,
  type RouteSample,
  type RouteTable,
} from '#libs/routing';
import { CATALOG } from '../tokens.js';
import { ProbeClient } from './probe.client.js';
import { groupByProbe } from './shared-probes.js';

/** What an edge records of a refusal; a stream entry longer than that is cut all the same. */
const MAX_REFUSAL_CHARS = 200;

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
        // Only this tracker's verdicts (a probe's, a refused credential's): a breaker or a rate
        // limit belonged to the old leader's passive stats.
        if (
          c.state !== 'down' ||
          !(c.reason.startsWith('probe') || c.reason.startsWith('request:')) ||
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

  /**
   * Probes every enabled provider concurrently, one probe for the providers that share one (the
   * same URL and key: shared-probes.ts), and folds each outcome into all of them. Never throws.
   */
  async probeAll(): Promise<void> {
    const started = Date.now();
    const enabled = [...this.catalog.providers.values()].filter((p) => p.disabledReason === null);
    const groups = groupByProbe(enabled, (p) => this.probes.probeKey(p));
    const outcomes = await Promise.all(groups.map((group) => this.probes.probe(group[0]!)));
    const now = Date.now();
    const downAfter = this.catalog.config.router.down_after_failures;
    groups.forEach((group, i) => {
      for (const provider of group) {
        const prev = this.health.get(provider.id);
        // A refusal that came in while this probe was out is newer than its answer: it stands.
        if (prev !== undefined && prev.checkedAt > started) continue;
        this.set(provider.id, prev, applyProbeOutcome(prev, outcomes[i]!, downAfter, now));
      }
    });
  }

  /**
   * Folds in the edges' samples that say a provider refused the gateway's credentials on a live
   * request: the provider is down with the refusal's words, for every model and every edge, until
   * a probe sent after it passes. True when any provider changed state or reason.
   */
  refusals(samples: readonly RouteSample[], now: number): boolean {
    const downAfter = this.catalog.config.router.down_after_failures;
    let changed = false;
    for (const s of samples) {
      if (s.refusal === undefined || !this.catalog.providers.has(s.providerId)) continue;
      const prev = this.health.get(s.providerId);
      const words = recordableText(String(s.refusal), MAX_REFUSAL_CHARS);
      // The router's clock, not the edge's: a probe sent after this moment may bring it up.
      const next = applyRefusal(prev, { status: s.status, words }, downAfter, now);
      changed ||= prev?.state !== next.state || prev.reason !== next.reason;
      this.set(s.providerId, prev, next);
    }
    return changed;
  }

  private set(providerId: string, prev: ProviderHealth | undefined, next: ProviderHealth): void {
    if (prev ? prev.state !== next.state : next.state === 'down') {
      this.logger.warn(
        `provider ${providerId}: ${prev?.state ?? 'unprobed'} -> ${next.state} (${next.reason})`,
      );
    }
    this.health.set(providerId, next);
  }
}
