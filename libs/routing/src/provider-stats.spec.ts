import { describe, expect, it } from '@jest/globals';
import { ProviderStats } from './provider-stats.js';
import { type RouteSample } from './route-sample.js';

const settings = { ewmaAlpha: 0.5, windowSamples: 10, windowMs: 10_000 };

function sample(extra: Partial<RouteSample> = {}): RouteSample {
  return {
    providerId: 'a',
    model: 'm',
    at: 0,
    outcome: 'ok',
    status: 200,
    latencyMs: 100,
    ttftMs: null,
    retryAfterMs: null,
    ...extra,
  };
}

describe('ProviderStats', () => {
  it('starts empty', () => {
    expect(new ProviderStats(settings).snapshot(0)).toMatchObject({
      latencyEwmaMs: null,
      latencyP50Ms: null,
      errorRate: 0,
      consecutiveFailures: 0,
      rateLimitedUntil: null,
    });
  });

  it('keeps an EWMA of latency and TTFT seeded by the first sample', () => {
    const s = new ProviderStats(settings);
    s.record(sample({ latencyMs: 100, ttftMs: 40 }));
    s.record(sample({ latencyMs: 200, ttftMs: 80 }));
    s.record(sample({ latencyMs: 300, ttftMs: null }));
    // 100 -> 150 -> 225; TTFT 40 -> 60 (the null is not a sample)
    expect(s.snapshot(0)).toMatchObject({ latencyEwmaMs: 225, ttftEwmaMs: 60 });
  });

  it('computes p50/p95 over the last window_samples successes only', () => {
    const s = new ProviderStats(settings);
    for (let i = 1; i <= 20; i++) s.record(sample({ latencyMs: i * 10 }));
    s.record(sample({ outcome: 'timeout', status: 0, latencyMs: 99_999 }));
    // window holds 110..200
    expect(s.snapshot(0)).toMatchObject({ latencyP50Ms: 150, latencyP95Ms: 200 });
  });

  it('counts only provider failures in the error rate and the streak; a success resets the streak', () => {
    const s = new ProviderStats(settings);
    s.record(sample({ outcome: 'http_error', status: 400 }));
    s.record(sample({ outcome: 'http_error', status: 500 }));
    s.record(sample({ outcome: 'connect_error', status: 0 }));
    expect(s.snapshot(0)).toMatchObject({
      windowSamples: 3,
      windowFailures: 2,
      consecutiveFailures: 2,
      lastFailure: 'connect error',
    });
    s.record(sample());
    expect(s.snapshot(0)).toMatchObject({ consecutiveFailures: 0, errorRate: 0.5 });
  });

  it('forgets attempts older than the window', () => {
    const s = new ProviderStats(settings);
    s.record(sample({ at: 0, outcome: 'timeout', status: 0 }));
    s.record(sample({ at: 9_000 }));
    expect(s.snapshot(9_500)).toMatchObject({ windowSamples: 2, windowFailures: 1 });
    expect(s.snapshot(11_000)).toMatchObject({ windowSamples: 1, windowFailures: 0, errorRate: 0 });
    expect(s.snapshot(30_000)).toMatchObject({ windowSamples: 0, errorRate: 0 });
  });

  it('holds a 429 retry-after until it passes, keeping the latest deadline', () => {
    const s = new ProviderStats(settings);
    s.record(sample({ at: 1_000, outcome: 'rate_limited', status: 429, retryAfterMs: 30_000 }));
    s.record(sample({ at: 2_000, outcome: 'rate_limited', status: 429, retryAfterMs: 5_000 }));
    expect(s.snapshot(2_000)).toMatchObject({ rateLimitedUntil: 31_000, retryAfterMs: 30_000 });
    expect(s.snapshot(31_000)).toMatchObject({ rateLimitedUntil: null, retryAfterMs: null });
    s.record(sample({ at: 40_000, outcome: 'rate_limited', status: 429 }));
    expect(s.snapshot(40_000).rateLimitedUntil).toBeNull();
  });

  it('clearFailures empties the window and the streak', () => {
    const s = new ProviderStats(settings);
    s.record(sample({ outcome: 'timeout', status: 0 }));
    s.clearFailures();
    expect(s.snapshot(0)).toMatchObject({ windowSamples: 0, consecutiveFailures: 0 });
  });
});
