import { describe, expect, it } from '@jest/globals';
import { RestartPolicy } from './restart-policy.js';

const options = { maxBootFailures: 3, baseDelayMs: 100, maxDelayMs: 1_000, stableMs: 30_000 };

describe('RestartPolicy', () => {
  it('backs off exponentially up to the ceiling while workers keep dying', () => {
    const policy = new RestartPolicy(options);
    const delays = [1, 2, 3, 4, 5].map(() => policy.onUnexpectedExit(1_000));
    expect(delays).toEqual([100, 200, 400, 800, 1_000].map((delayMs) => ({ restart: true, delayMs })));
  });

  it('starts afresh after a worker served for stableMs', () => {
    const policy = new RestartPolicy(options);
    policy.onUnexpectedExit(1_000);
    policy.onUnexpectedExit(1_000);
    expect(policy.onUnexpectedExit(60_000)).toEqual({ restart: true, delayMs: 100 });
  });

  it('gives up when workers keep dying before they listen', () => {
    const policy = new RestartPolicy(options);
    expect(policy.onUnexpectedExit(null)).toMatchObject({ restart: true });
    expect(policy.onUnexpectedExit(null)).toMatchObject({ restart: true });
    expect(policy.onUnexpectedExit(null)).toEqual({
      restart: false,
      reason: '3 workers in a row died before listening',
    });
  });

  it('counts boot failures in a row only: a worker that listened resets the count', () => {
    const policy = new RestartPolicy(options);
    policy.onUnexpectedExit(null);
    policy.onUnexpectedExit(null);
    policy.onUnexpectedExit(5_000);
    expect(policy.onUnexpectedExit(null)).toMatchObject({ restart: true });
  });
});
