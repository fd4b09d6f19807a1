/** What the router publishes and the edges route on. Pure data, no I/O. */
/** up: serve; half_open: breaker trial traffic only; down: breaker open or probe failing; disabled: no secret. */
export type ProviderState = 'up' | 'half_open' | 'down' | 'disabled';

export interface RouteCandidate {
  readonly providerId: string;
  /** Model name sent upstream (may differ from the client's model ID). */
  readonly upstreamModel: string;
  readonly priority: number;
  readonly weight: number;
  readonly state: ProviderState;
  /** Human-readable reason for the state, shown by GET /routes. */
  readonly reason: string;
  /** Router's latency EWMA for this provider and model (passive samples, else probes); null if unknown. */
  readonly latencyMs?: number | null;
  readonly ttftMs?: number | null;
  /** Failure share over the breaker window, 0..1. */
  readonly errorRate?: number;
}

export interface RouteTable {
  /** Monotonic per writer; edges ignore a table older than the one they hold. */
  readonly version: number;
  readonly generatedAt: string;
  /** Model ID -> candidates, best first. */
  readonly models: Readonly<Record<string, readonly RouteCandidate[]>>;
}
