import { type GatewayConfig } from '#libs/config';

/** `router.breaker` from the config. */
export type BreakerSettings = GatewayConfig['router']['breaker'];

/**
 * closed: traffic flows. open: no traffic until `until` (the cooldown). half_open: trial traffic;
 * `half_open_trials` successes close it, one failure opens it again for another cooldown.
 */
export type BreakerState =
  | { readonly phase: 'closed' }
  | { readonly phase: 'open'; readonly since: number; readonly until: number; readonly cause: string }
  | { readonly phase: 'half_open'; readonly successes: number; readonly cause: string };

export const CLOSED: BreakerState = { phase: 'closed' };

/** One attempt's result with the statistics after it was counted. */
export interface BreakerInput {
  readonly failure: boolean;
  /** e.g. "HTTP 500", "timeout": shown in the cause. */
  readonly detail: string;
  readonly consecutiveFailures: number;
  readonly windowSamples: number;
  readonly windowFailures: number;
}

function open(now: number, settings: BreakerSettings, cause: string): BreakerState {
  return { phase: 'open', since: now, until: now + settings.cooldown_ms, cause };
}

/** Why a closed breaker should open on this input, or null when it stays closed. */
function tripCause(input: BreakerInput, settings: BreakerSettings): string | null {
  if (input.consecutiveFailures >= settings.consecutive_failures)
    return `${input.consecutiveFailures} consecutive failures (${input.detail})`;
  if (input.windowSamples >= settings.min_samples) {
    const rate = input.windowFailures / input.windowSamples;
    if (rate >= settings.failure_rate) {
      const seconds = Math.round(settings.window_ms / 1000);
      return `${Math.round(rate * 100)}% failures over ${seconds}s (${input.windowFailures}/${input.windowSamples}, last ${input.detail})`;
    }
  }
  return null;
}

/** Folds one attempt in. Samples reaching an open breaker (stragglers, last-resort tries) change nothing. */
export function breakerOnAttempt(
  state: BreakerState,
  input: BreakerInput,
  settings: BreakerSettings,
  now: number,
): BreakerState {
  switch (state.phase) {
    case 'closed': {
      if (!input.failure) return state;
      const cause = tripCause(input, settings);
      return cause === null ? state : open(now, settings, cause);
    }
    case 'open':
      return state;
    case 'half_open': {
      if (input.failure) return open(now, settings, `trial failed (${input.detail})`);
      const successes = state.successes + 1;
      return successes >= settings.half_open_trials ? CLOSED : { ...state, successes };
    }
  }
}

/** The passage of time: an open breaker turns half-open once its cooldown is over. */
export function breakerOnTime(state: BreakerState, now: number): BreakerState {
  if (state.phase === 'open' && now >= state.until)
    return { phase: 'half_open', successes: 0, cause: state.cause };
  return state;
}
