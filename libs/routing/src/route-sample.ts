/**
 * A passive health sample: what one upstream attempt at an edge looked like. Edges batch these and
 * ship them to the router (one Redis stream entry per flush); the router folds them into its stats.
 */
export type SampleOutcome =
  'ok' | 'http_error' | 'rate_limited' | 'connect_error' | 'timeout' | 'stream_error';

export interface RouteSample {
  readonly providerId: string;
  /** The client's model ID (stats are kept per provider and model). */
  readonly model: string;
  /** ms epoch when the attempt ended. */
  readonly at: number;
  readonly outcome: SampleOutcome;
  /** Upstream HTTP status, 0 when none arrived. */
  readonly status: number;
  readonly latencyMs: number;
  readonly ttftMs: number | null;
  /** From a 429's `retry-after`, in ms; null when absent. */
  readonly retryAfterMs: number | null;
  /**
   * The provider refused the gateway's own credentials (a 401/403, or the vendor's equivalent):
   * why, in its words, bounded and escaped. The router marks the provider down with it until a
   * probe passes. Absent for any other outcome (and in samples of older edges).
   */
  readonly refusal?: string;
}

/** Whether the outcome counts against the provider (client errors such as 400 do not). */
export function isProviderFailure(sample: Pick<RouteSample, 'outcome' | 'status'>): boolean {
  if (sample.outcome === 'ok') return false;
  if (sample.outcome === 'http_error')
    return sample.status >= 500 || sample.status === 401 || sample.status === 403;
  return true;
}
