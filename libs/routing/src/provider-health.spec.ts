import { describe, expect, it } from '@jest/globals';
import {
  applyProbeOutcome,
  applyRefusal,
  type ProbeOutcome,
  type ProviderHealth,
} from './provider-health.js';

const ok: ProbeOutcome = { ok: true, detail: 'probe ok', latencyMs: 12 };
const fail: ProbeOutcome = { ok: false, reason: 'probe: HTTP 503', latencyMs: 5 };

function run(outcomes: ProbeOutcome[], downAfter = 2): ProviderHealth[] {
  const states: ProviderHealth[] = [];
  let prev: ProviderHealth | undefined;
  outcomes.forEach((o, i) => {
    prev = applyProbeOutcome(prev, o, downAfter, i);
    states.push(prev);
  });
  return states;
}

describe('applyProbeOutcome', () => {
  it('goes down only after the configured number of consecutive failures', () => {
    expect(run([fail, fail, fail]).map((h) => [h.state, h.reason, h.consecutiveFailures])).toEqual([
      ['up', 'probe: HTTP 503 (1/2 failures)', 1],
      ['down', 'probe: HTTP 503', 2],
      ['down', 'probe: HTTP 503', 3],
    ]);
  });

  it('comes back up on one success and resets the failure count', () => {
    const last = run([fail, fail, ok, fail]);
    expect(last.map((h) => h.state)).toEqual(['up', 'down', 'up', 'up']);
    expect(last[2]).toEqual({
      state: 'up',
      reason: 'probe ok',
      consecutiveFailures: 0,
      checkedAt: 2,
      latencyMs: 12,
    });
    expect(last[3]?.consecutiveFailures).toBe(1);
  });

  it('marks a provider down at the first failure when the threshold is 1', () => {
    expect(run([fail], 1)[0]?.state).toBe('down');
  });

  it('keeps a down provider down while failures stay below the threshold (e.g. seeded from a previous leader)', () => {
    const seeded: ProviderHealth = {
      state: 'down',
      reason: 'x',
      consecutiveFailures: 0,
      checkedAt: 0,
      latencyMs: null,
    };
    expect(applyProbeOutcome(seeded, fail, 3, 1)).toMatchObject({ state: 'down', reason: 'probe: HTTP 503' });
  });
});

describe('applyRefusal', () => {
  const denied = {
    status: 403,
    words: 'AccessDeniedException: User: arn:aws:iam::1:user/g is not authorized',
  };

  it("takes an up provider down at once, with the request's status and words in the probe's form", () => {
    const up = applyProbeOutcome(undefined, ok, 2, 0);
    expect(applyRefusal(up, denied, 2, 5)).toEqual({
      state: 'down',
      reason: 'request: HTTP 403 AccessDeniedException: User: arn:aws:iam::1:user/g is not authorized',
      consecutiveFailures: 2,
      checkedAt: 5,
      latencyMs: 12,
    });
    expect(applyRefusal(undefined, { status: 401, words: '' }, 3, 1)).toMatchObject({
      state: 'down',
      reason: 'request: HTTP 401',
      consecutiveFailures: 3,
      latencyMs: null,
    });
  });

  it('stays down while probes fail (with their reason) and comes up on the first probe that passes', () => {
    const refused = applyRefusal(applyProbeOutcome(undefined, ok, 2, 0), denied, 2, 1);
    const failing = applyProbeOutcome(refused, fail, 2, 2);
    expect(failing).toMatchObject({ state: 'down', reason: 'probe: HTTP 503', consecutiveFailures: 3 });
    expect(applyProbeOutcome(failing, ok, 2, 3)).toMatchObject({ state: 'up', consecutiveFailures: 0 });
  });

  it('keeps a higher failure count than the threshold', () => {
    const down = run([fail, fail, fail]).at(-1);
    expect(applyRefusal(down, denied, 2, 9).consecutiveFailures).toBe(3);
  });
});
