import { describe, expect, it } from '@jest/globals';
import { DEFAULT_RESTART_POLICY, nextAttempt, restartDelayMs } from './restart.js';

const policy = { initialDelayMs: 1_000, maxDelayMs: 30_000, stableAfterMs: 60_000 };

describe('restartDelayMs', () => {
  it('doubles from the initial delay and stays at the cap', () => {
    expect([1, 2, 3, 4, 5, 6, 7, 50].map((n) => restartDelayMs(n, policy))).toEqual([
      1_000, 2_000, 4_000, 8_000, 16_000, 30_000, 30_000, 30_000,
    ]);
  });

  it('is the default policy the start script uses', () => {
    expect(DEFAULT_RESTART_POLICY).toEqual(policy);
  });
});

describe('nextAttempt', () => {
  it('counts crashes after short runs, and starts over after a healthy run', () => {
    expect(nextAttempt(0, 500, policy)).toBe(1);
    expect(nextAttempt(3, 59_999, policy)).toBe(4);
    expect(nextAttempt(7, 60_000, policy)).toBe(1);
  });
});
