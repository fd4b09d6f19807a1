/** How the cluster primary answers a worker that died on its own (not during a stop). */
export type RestartDecision =
  { readonly restart: true; readonly delayMs: number } | { readonly restart: false; readonly reason: string };

export interface RestartPolicyOptions {
  /** Workers in a row that died before listening; then the primary gives up (exit 1). */
  readonly maxBootFailures: number;
  readonly baseDelayMs: number;
  readonly maxDelayMs: number;
  /** A worker that served this long before dying starts the backoff afresh. */
  readonly stableMs: number;
}

export const DEFAULT_RESTART_POLICY: RestartPolicyOptions = {
  maxBootFailures: 5,
  baseDelayMs: 100,
  maxDelayMs: 10_000,
  stableMs: 30_000,
};

/**
 * Restart with exponential backoff, so a worker that dies on every request does not burn the CPU
 * its siblings serve with; give up when workers keep dying before they listen (a bad config, a port
 * taken, a dependency missing): no restart can fix that, and exiting lets the orchestrator say so.
 */
export class RestartPolicy {
  private streak = 0;
  private bootFailures = 0;

  constructor(private readonly options: RestartPolicyOptions = DEFAULT_RESTART_POLICY) {}

  /** `servedMs`: how long it listened; null when it died before listening. */
  onUnexpectedExit(servedMs: number | null): RestartDecision {
    if (servedMs === null) {
      this.bootFailures++;
      if (this.bootFailures >= this.options.maxBootFailures)
        return { restart: false, reason: `${this.bootFailures} workers in a row died before listening` };
    } else {
      this.bootFailures = 0;
      if (servedMs >= this.options.stableMs) this.streak = 0;
    }
    this.streak++;
    const delayMs = Math.min(this.options.maxDelayMs, this.options.baseDelayMs * 2 ** (this.streak - 1));
    return { restart: true, delayMs };
  }
}
