import { describe, expect, it } from '@jest/globals';
import {
  type BreakerInput,
  type BreakerSettings,
  type BreakerState,
  breakerOnAttempt,
  breakerOnTime,
  CLOSED,
} from './circuit-breaker.js';

const settings: BreakerSettings = {
  consecutive_failures: 3,
  failure_rate: 0.5,
  min_samples: 10,
  window_ms: 30_000,
  cooldown_ms: 1_000,
  half_open_trials: 2,
};

function attempt(failure: boolean, extra: Partial<BreakerInput> = {}): BreakerInput {
  return {
    failure,
    detail: failure ? 'HTTP 500' : 'ok',
    consecutiveFailures: failure ? 1 : 0,
    windowSamples: 1,
    windowFailures: failure ? 1 : 0,
    ...extra,
  };
}

describe('circuit breaker', () => {
  it('stays closed on successes and on failures below both thresholds', () => {
    let s: BreakerState = CLOSED;
    s = breakerOnAttempt(
      s,
      attempt(true, { consecutiveFailures: 2, windowSamples: 9, windowFailures: 9 }),
      settings,
      0,
    );
    s = breakerOnAttempt(s, attempt(false), settings, 1);
    expect(s).toBe(CLOSED);
  });

  it('opens after N consecutive failures, saying so', () => {
    const s = breakerOnAttempt(CLOSED, attempt(true, { consecutiveFailures: 3 }), settings, 100);
    expect(s).toEqual({ phase: 'open', since: 100, until: 1100, cause: '3 consecutive failures (HTTP 500)' });
  });

  it('opens on the failure rate once the window holds min_samples, not before', () => {
    const few = attempt(true, { consecutiveFailures: 1, windowSamples: 9, windowFailures: 8 });
    expect(breakerOnAttempt(CLOSED, few, settings, 0)).toBe(CLOSED);
    const enough = attempt(true, { consecutiveFailures: 1, windowSamples: 10, windowFailures: 5 });
    expect(breakerOnAttempt(CLOSED, enough, settings, 0)).toMatchObject({
      phase: 'open',
      cause: '50% failures over 30s (5/10, last HTTP 500)',
    });
    const under = attempt(true, { consecutiveFailures: 1, windowSamples: 10, windowFailures: 4 });
    expect(breakerOnAttempt(CLOSED, under, settings, 0)).toBe(CLOSED);
  });

  it('ignores attempts while open and turns half-open when the cooldown is over', () => {
    const opened = breakerOnAttempt(CLOSED, attempt(true, { consecutiveFailures: 3 }), settings, 0);
    expect(breakerOnAttempt(opened, attempt(false), settings, 10)).toBe(opened);
    expect(breakerOnTime(opened, 999)).toBe(opened);
    expect(breakerOnTime(opened, 1000)).toEqual({
      phase: 'half_open',
      successes: 0,
      cause: '3 consecutive failures (HTTP 500)',
    });
    expect(breakerOnTime(CLOSED, 1e12)).toBe(CLOSED);
  });

  it('closes after half_open_trials successes', () => {
    let s: BreakerState = { phase: 'half_open', successes: 0, cause: 'x' };
    s = breakerOnAttempt(s, attempt(false), settings, 0);
    expect(s).toEqual({ phase: 'half_open', successes: 1, cause: 'x' });
    s = breakerOnAttempt(s, attempt(false), settings, 0);
    expect(s).toBe(CLOSED);
  });

  it('opens again for a full cooldown on one failed trial', () => {
    const s = breakerOnAttempt(
      { phase: 'half_open', successes: 1, cause: 'x' },
      attempt(true),
      settings,
      5000,
    );
    expect(s).toEqual({ phase: 'open', since: 5000, until: 6000, cause: 'trial failed (HTTP 500)' });
  });
});
