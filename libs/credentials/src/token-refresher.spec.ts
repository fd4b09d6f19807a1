import { describe, expect, it } from '@jest/globals';
import { type AccessToken, type RefresherClock, refreshDelayMs, TokenRefresher } from './token-refresher.js';
import { CredentialUnavailableError, failureReason } from './upstream-auth.js';

/** A clock whose timers fire only when the test advances it. */
class FakeClock implements RefresherClock {
  t = 1_000_000;
  private timers: Array<{ at: number; fn: () => void; id: number }> = [];
  private next = 1;
  now = (): number => this.t;
  setTimeout = (fn: () => void, ms: number): unknown => {
    const id = this.next++;
    this.timers.push({ at: this.t + ms, fn, id });
    return id;
  };
  clearTimeout = (handle: unknown): void => {
    this.timers = this.timers.filter((x) => x.id !== handle);
  };
  get pending(): number[] {
    return this.timers.map((x) => x.at - this.t);
  }
  /** Moves time on, firing due timers in order, and lets their promises settle. */
  async advance(ms: number): Promise<void> {
    const end = this.t + ms;
    for (;;) {
      const due = this.timers.filter((x) => x.at <= end).sort((a, b) => a.at - b.at)[0];
      if (!due) break;
      this.timers = this.timers.filter((x) => x !== due);
      this.t = due.at;
      due.fn();
      await flush();
    }
    this.t = end;
    await flush();
  }
}

const flush = async (): Promise<void> => {
  for (let i = 0; i < 10; i++) await Promise.resolve();
};

const MIN = 60_000;

/** A token source issuing `tok-1`, `tok-2`... valid for `lifeMs`, or failing while `fail` is set. */
function source(clock: FakeClock, lifeMs: number) {
  const state = { calls: 0, fail: null as string | null, gate: null as Promise<void> | null };
  const fetch = async (): Promise<AccessToken> => {
    state.calls++;
    if (state.gate) await state.gate;
    if (state.fail !== null) throw new Error(state.fail);
    return { token: `tok-${state.calls}`, expiresAtMs: clock.now() + lifeMs };
  };
  return { state, fetch };
}

describe('refreshDelayMs', () => {
  it('refreshes 4 minutes before expiry, at 80 % of a shorter lifetime, no later than a hint', () => {
    expect(refreshDelayMs(60 * MIN, undefined, 0)).toBe(56 * MIN);
    expect(refreshDelayMs(10_000, undefined, 0)).toBe(8_000);
    expect(refreshDelayMs(60 * MIN, 30 * MIN, 0)).toBe(30 * MIN);
    expect(refreshDelayMs(60 * MIN, -5, 0)).toBe(0);
  });
});

describe('TokenRefresher', () => {
  it('renews the token in the background before it expires, so callers never wait', async () => {
    const clock = new FakeClock();
    const { state, fetch } = source(clock, 60 * MIN);
    const r = new TokenRefresher(fetch, { clock });
    await r.start();
    expect(r.valid()).toBe('tok-1');
    expect(clock.pending).toEqual([56 * MIN]);
    await clock.advance(56 * MIN - 1);
    expect(state.calls).toBe(1);
    await clock.advance(1);
    expect(state.calls).toBe(2);
    // Valid all along: the old token until the new one arrived, then the new one.
    expect(r.valid()).toBe('tok-2');
    r.close();
    expect(clock.pending).toEqual([]);
  });

  it('shares one in-flight refresh between concurrent callers', async () => {
    const clock = new FakeClock();
    const { state, fetch } = source(clock, 10_000);
    let open!: () => void;
    state.gate = new Promise<void>((resolve) => (open = resolve));
    const r = new TokenRefresher(fetch, { clock });
    const callers = Promise.all([r.token(), r.token(), r.token(), r.start()]);
    await flush();
    open();
    const [a, b, c] = await callers;
    expect([a, b, c]).toEqual(['tok-1', 'tok-1', 'tok-1']);
    expect(state.calls).toBe(1);
    r.close();
  });

  it('keeps the last valid token through failed refreshes, retrying with backoff, and records why', async () => {
    const clock = new FakeClock();
    const { state, fetch } = source(clock, 10_000);
    const failures: string[] = [];
    let recovered = 0;
    const r = new TokenRefresher(fetch, {
      clock,
      onFailure: (reason) => failures.push(reason),
      onRecovery: () => recovered++,
    });
    await r.start();
    state.fail = 'AADSTS7000215: Invalid client secret provided. Trace ID: 1234 Correlation ID: 5678';
    await clock.advance(8_000); // the scheduled refresh fails
    expect(r.valid()).toBe('tok-1');
    expect(r.failure).toBe('AADSTS7000215: Invalid client secret provided.');
    expect(clock.pending).toEqual([1_000]);
    await clock.advance(1_000); // retry 1 fails, the next in 2 s
    expect(clock.pending).toEqual([2_000]);
    expect(failures).toHaveLength(2);
    // Past expiry (less the skew) the token is no longer sent, and callers do not wait on the platform.
    await clock.advance(500);
    expect(r.valid()).toBeNull();
    await expect(r.token()).rejects.toBeInstanceOf(CredentialUnavailableError);
    state.fail = null;
    await clock.advance(2_000);
    expect(r.valid()).toMatch(/^tok-/);
    expect(r.failure).toBeNull();
    expect(recovered).toBe(1);
    r.close();
  });

  it('asks again soon when the library answers from its own cache with the same token', async () => {
    const clock = new FakeClock();
    const fixed = { token: 'same', expiresAtMs: clock.now() + 10_000 };
    const r = new TokenRefresher(async () => fixed, { clock });
    await r.start();
    await clock.advance(8_000);
    expect(clock.pending).toEqual([1_000]);
    r.close();
  });

  it('refuses a token that is already expired', async () => {
    const clock = new FakeClock();
    const r = new TokenRefresher(async () => ({ token: 'old', expiresAtMs: clock.now() - 1 }), { clock });
    await r.start();
    expect(r.valid()).toBeNull();
    expect(r.failure).toMatch(/no usable token/);
    r.close();
  });
});

describe('failureReason', () => {
  it('keeps the first line, before per-attempt IDs, bounded', () => {
    expect(failureReason(new Error('a\nb'))).toBe('a');
    expect(failureReason(new Error('x'.repeat(300)))).toHaveLength(200);
    expect(failureReason('plain')).toBe('plain');
    const msal =
      'invalid_client: Error(s):  - Timestamp: 2026-11-26T14:47:32.628Z - Description: AADSTS7000215: Invalid client secret provided. Trace ID: bd80 Correlation ID: b601 Timestamp: 2026-11-26T14:47:32.628Z - Correlation ID: 2b61 - Trace ID: 280b';
    expect(failureReason(new Error(msal))).toBe(
      'invalid_client: AADSTS7000215: Invalid client secret provided.',
    );
  });
});
