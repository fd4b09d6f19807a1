/** Where one provider stands in this edge's own breaker. */
export type LocalBreakerState = 'closed' | 'open' | 'half_open';

export interface LocalBreakerOptions {
  /** Consecutive provider failures that open the breaker. */
  readonly failures: number;
  /** How long it stays open before one trial request is let through. */
  readonly cooldownMs: number;
}

interface Entry {
  failures: number;
  /** ms epoch until which the provider is skipped; 0 when closed. */
  openUntil: number;
  /** A trial is out (half-open): further requests wait for its result. */
  trialOut: boolean;
}

/**
 * This edge's breaker per provider. It reacts on the first few failures, before the router has
 * folded the samples in and published, and it is what keeps routing sane when the router is gone.
 * Pure: the caller passes the clock, so tests drive time.
 *
 * closed -> `failures` consecutive failures -> open for `cooldownMs` -> half-open: one request is
 * let through; its success closes the breaker, its failure opens it for another cooldown.
 */
export class LocalBreaker {
  private readonly entries = new Map<string, Entry>();

  constructor(private readonly opts: LocalBreakerOptions) {}

  /** Whether the provider should be skipped now. Claims the half-open trial when it is due. */
  isOpen(providerId: string, now: number): boolean {
    const e = this.entries.get(providerId);
    if (e === undefined || e.openUntil === 0) return false;
    if (now < e.openUntil || e.trialOut) return true;
    return false;
  }

  /** Call when a request is actually sent to the provider: past the cooldown it is the trial. */
  onAttempt(providerId: string, now: number): void {
    const e = this.entries.get(providerId);
    if (e !== undefined && e.openUntil !== 0 && now >= e.openUntil) e.trialOut = true;
  }

  /**
   * An attempt that ended without a verdict (the client left): if it was the half-open trial, the
   * next request may be the trial instead. Without this the provider would stay skipped for good.
   */
  release(providerId: string): void {
    const e = this.entries.get(providerId);
    if (e !== undefined) e.trialOut = false;
  }

  /** The result of an attempt: `failure` when it counts against the provider (isProviderFailure). */
  record(providerId: string, failure: boolean, now: number): void {
    let e = this.entries.get(providerId);
    if (!failure) {
      if (e !== undefined) {
        e.failures = 0;
        e.openUntil = 0;
        e.trialOut = false;
      }
      return;
    }
    if (e === undefined) {
      e = { failures: 0, openUntil: 0, trialOut: false };
      this.entries.set(providerId, e);
    }
    e.failures++;
    // A failed trial (or any failure while open) re-opens at once; otherwise at the threshold.
    if (e.openUntil !== 0 || e.failures >= this.opts.failures) {
      e.openUntil = now + this.opts.cooldownMs;
      e.trialOut = false;
    }
  }

  state(providerId: string, now: number): LocalBreakerState {
    const e = this.entries.get(providerId);
    if (e === undefined || e.openUntil === 0) return 'closed';
    return now < e.openUntil ? 'open' : 'half_open';
  }

  /** Providers not closed, for the health endpoint. */
  snapshot(now: number): Record<string, { state: LocalBreakerState; failures: number }> {
    const out: Record<string, { state: LocalBreakerState; failures: number }> = {};
    for (const [id, e] of this.entries) {
      const state = this.state(id, now);
      if (state !== 'closed' || e.failures > 0) out[id] = { state, failures: e.failures };
    }
    return out;
  }
}
