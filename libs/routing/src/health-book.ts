import {
  type BreakerSettings,
  type BreakerState,
  breakerOnAttempt,
  breakerOnTime,
  CLOSED,
} from './circuit-breaker.js';
import { describeFailure, ProviderStats, type StatsSettings, type StatsSnapshot } from './provider-stats.js';
import { isProviderFailure, type RouteSample } from './route-sample.js';

/** What the router knows from passive samples about one provider serving one model. */
export interface CandidateHealth {
  readonly breaker: BreakerState;
  readonly stats: StatsSnapshot;
}

/** Looks up a candidate's passive health; what buildRouteTable takes. */
export type CandidateHealthLookup = (providerId: string, modelId: string) => CandidateHealth | undefined;

interface Entry {
  readonly stats: ProviderStats;
  breaker: BreakerState;
}

/**
 * Stats and breaker per (provider, model), folded from samples. No I/O, no timers: the caller
 * passes `now`, and calls `tick` often enough (the router: every second) for cooldowns to end.
 */
export class HealthBook {
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly stats: StatsSettings,
    private readonly breaker: BreakerSettings,
  ) {}

  /** Folds one sample in; true when a breaker changed phase. */
  record(sample: RouteSample, now: number): boolean {
    const key = keyOf(sample.providerId, sample.model);
    let entry = this.entries.get(key);
    if (!entry) {
      entry = { stats: new ProviderStats(this.stats), breaker: CLOSED };
      this.entries.set(key, entry);
    }
    entry.stats.record(sample);
    const counts = entry.stats.failureCounts(now);
    const before = breakerOnTime(entry.breaker, now);
    const after = breakerOnAttempt(
      before,
      {
        failure: isProviderFailure(sample),
        detail: describeFailure(sample),
        consecutiveFailures: counts.consecutive,
        windowSamples: counts.attempts,
        windowFailures: counts.failures,
      },
      this.breaker,
      now,
    );
    // Closed again after its trials: the failures that opened it must not reopen it at once.
    if (after.phase === 'closed' && before.phase !== 'closed') entry.stats.clearFailures();
    const changed = after.phase !== entry.breaker.phase;
    entry.breaker = after;
    return changed;
  }

  /** Lets time pass: open breakers whose cooldown ended turn half-open. True when any changed. */
  tick(now: number): boolean {
    let changed = false;
    for (const entry of this.entries.values()) {
      const next = breakerOnTime(entry.breaker, now);
      if (next !== entry.breaker) changed = true;
      entry.breaker = next;
    }
    return changed;
  }

  get(providerId: string, modelId: string, now: number): CandidateHealth | undefined {
    const entry = this.entries.get(keyOf(providerId, modelId));
    return entry && { breaker: entry.breaker, stats: entry.stats.snapshot(now) };
  }

  lookup(now: number): CandidateHealthLookup {
    return (providerId, modelId) => this.get(providerId, modelId, now);
  }

  clear(): void {
    this.entries.clear();
  }
}

function keyOf(providerId: string, modelId: string): string {
  return `${providerId}\u0000${modelId}`;
}
