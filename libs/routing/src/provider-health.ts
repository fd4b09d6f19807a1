/**
 * What the router knows about one provider from its active probes, and the pure transition applied
 * after each probe. Kept here (not in the router app) so the rules are unit-tested with plain data.
 */
export interface ProviderHealth {
  readonly state: 'up' | 'down';
  /** Human-readable, shown by GET /routes. Stable while nothing changes, so unchanged health republishes nothing. */
  readonly reason: string;
  readonly consecutiveFailures: number;
  /** ms epoch of the last probe. */
  readonly checkedAt: number;
  readonly latencyMs: number | null;
}

/** One probe's result: `ok` when the provider answered in a way that proves it is reachable and accepts our key. */
export type ProbeOutcome =
  | { readonly ok: true; readonly detail: string; readonly latencyMs: number }
  | { readonly ok: false; readonly reason: string; readonly latencyMs: number | null };

/**
 * One success brings a provider up; `downAfterFailures` consecutive failures bring it down. While
 * failures are below the threshold the provider stays in its previous state.
 */
export function applyProbeOutcome(
  prev: ProviderHealth | undefined,
  outcome: ProbeOutcome,
  downAfterFailures: number,
  now: number,
): ProviderHealth {
  if (outcome.ok) {
    return {
      state: 'up',
      reason: outcome.detail,
      consecutiveFailures: 0,
      checkedAt: now,
      latencyMs: outcome.latencyMs,
    };
  }
  const failures = (prev?.consecutiveFailures ?? 0) + 1;
  if (failures >= downAfterFailures) {
    return {
      state: 'down',
      reason: outcome.reason,
      consecutiveFailures: failures,
      checkedAt: now,
      latencyMs: outcome.latencyMs,
    };
  }
  const state = prev?.state ?? 'up';
  const reason =
    state === 'up' ? `${outcome.reason} (${failures}/${downAfterFailures} failures)` : outcome.reason;
  return { state, reason, consecutiveFailures: failures, checkedAt: now, latencyMs: outcome.latencyMs };
}
