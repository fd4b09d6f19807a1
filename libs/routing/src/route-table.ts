/** What the router publishes and the edges route on. Pure data, no I/O. */
export type ProviderState = 'up' | 'down' | 'disabled';

export interface RouteCandidate {
  readonly providerId: string;
  /** Model name sent upstream (may differ from the client's model ID). */
  readonly upstreamModel: string;
  readonly priority: number;
  readonly weight: number;
  readonly state: ProviderState;
  /** Human-readable reason for the state, shown by GET /routes. */
  readonly reason: string;
}

export interface RouteTable {
  /** Monotonic per writer; edges ignore a table older than the one they hold. */
  readonly version: number;
  readonly generatedAt: string;
  /** Model ID -> candidates, best first. */
  readonly models: Readonly<Record<string, readonly RouteCandidate[]>>;
}
