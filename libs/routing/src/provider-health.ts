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

/**
 * A live request found the provider refusing the gateway's own credentials (`status` 401/403 or
 * the vendor's equivalent; `words` its reason, '' when it gave none): down at once, as a failing
 * probe would leave it, with the request's reason in the form of the probe's. Its failure count is
 * at the threshold, so failing probes keep it down (with their own reason) and the next probe that
 * passes brings it up.
 */
export function applyRefusal(
  prev: ProviderHealth | undefined,
  refusal: { readonly status: number; readonly words: string },
  downAfterFailures: number,
  at: number,
): ProviderHealth {
  return {
    state: 'down',
    reason: `request: HTTP ${refusal.status}${refusal.words === '' ? '' : ` ${refusal.words}`}`,
    consecutiveFailures: Math.max(prev?.consecutiveFailures ?? 0, downAfterFailures),
    checkedAt: at,
    latencyMs: prev?.latencyMs ?? null,
  };
}
