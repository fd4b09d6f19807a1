import { describe, expect, it } from '@jest/globals';
import { HealthBook } from './health-book.js';
import { type RouteSample } from './route-sample.js';

const breaker = {
  consecutive_failures: 3,
  failure_rate: 0.5,
  min_samples: 100,
  window_ms: 10_000,
  cooldown_ms: 1_000,
  half_open_trials: 2,
};

function sample(at: number, ok: boolean, model = 'm'): RouteSample {
  return {
    providerId: 'a',
    model,
    at,
    outcome: ok ? 'ok' : 'http_error',
    status: ok ? 200 : 500,
    latencyMs: 50,
    ttftMs: null,
    retryAfterMs: null,
  };
}

describe('HealthBook', () => {
  it('runs the breaker through open, half-open and closed per provider and model', () => {
    const book = new HealthBook({ ewmaAlpha: 0.2, windowSamples: 10, windowMs: 10_000 }, breaker);
    expect(book.record(sample(0, false), 0)).toBe(false);
    book.record(sample(1, false), 1);
    expect(book.record(sample(2, false), 2)).toBe(true);
    expect(book.get('a', 'm', 2)?.breaker).toMatchObject({ phase: 'open', until: 1002 });
    expect(book.get('a', 'other', 2)).toBeUndefined();
    expect(book.tick(1001)).toBe(false);
    expect(book.tick(1002)).toBe(true);
    expect(book.get('a', 'm', 1002)?.breaker.phase).toBe('half_open');
    book.record(sample(1003, true), 1003);
    book.record(sample(1004, true), 1004);
    const closed = book.get('a', 'm', 1004);
    expect(closed?.breaker.phase).toBe('closed');
    // The failures that opened it are forgotten: one more failure does not reopen it.
    expect(closed?.stats.windowFailures).toBe(0);
    book.record(sample(1005, false), 1005);
    expect(book.get('a', 'm', 1005)?.breaker.phase).toBe('closed');
  });

  it('turns half-open on the next sample even without a tick', () => {
    const book = new HealthBook({ ewmaAlpha: 0.2, windowSamples: 10, windowMs: 10_000 }, breaker);
    for (let i = 0; i < 3; i++) book.record(sample(i, false), i);
    book.record(sample(5000, false), 5000);
    expect(book.get('a', 'm', 5000)?.breaker).toMatchObject({
      phase: 'open',
      cause: 'trial failed (HTTP 500)',
    });
    book.clear();
    expect(book.get('a', 'm', 5000)).toBeUndefined();
  });
});
