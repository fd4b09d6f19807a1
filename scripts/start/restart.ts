/**
 * When `npm start` brings a crashed app back. One app's crash must not stop the others (an aborted
 * console once took the edge down with it), so the supervisor restarts it alone; the delay doubles
 * with each crash that follows a short run, up to a cap, and a crash loop keeps retrying at the cap
 * for as long as it lasts: what broke it (a database down, a port taken) may come back by itself.
 */
export interface RestartPolicy {
  /** The delay before the first restart. */
  readonly initialDelayMs: number;
  /** The longest delay: a crash loop retries this often, forever. */
  readonly maxDelayMs: number;
  /** A run at least this long counts as healthy: its crash starts the backoff over. */
  readonly stableAfterMs: number;
}

export const DEFAULT_RESTART_POLICY: RestartPolicy = {
  initialDelayMs: 1_000,
  maxDelayMs: 30_000,
  stableAfterMs: 60_000,
};

/** The delay before restart number `attempt` (1 for the first one after a healthy run). */
export function restartDelayMs(attempt: number, policy: RestartPolicy): number {
  const doublings = Math.max(0, Math.min(attempt - 1, 30));
  return Math.min(policy.initialDelayMs * 2 ** doublings, policy.maxDelayMs);
}

/**
 * The attempt number of the restart after a crash: 1 when the run that crashed was healthy (ran
 * `stableAfterMs` or more), else one more than the previous crash's.
 */
export function nextAttempt(previousAttempt: number, uptimeMs: number, policy: RestartPolicy): number {
  return uptimeMs >= policy.stableAfterMs ? 1 : previousAttempt + 1;
}
