import { describe, expect, it } from '@jest/globals';
import { type RouteCandidate, type RouteTable } from '#libs/routing';
import { publishDecision, type PublishTiming } from './publish-policy.js';

const timing: PublishTiming = { probeIntervalMs: 5_000, refreshMs: 30_000, evaluateMs: 1_000 };

function table(...candidates: Partial<RouteCandidate>[]): RouteTable {
  return {
    version: 1,
    generatedAt: '',
    models: {
      m: candidates.map((c, i) => ({
        providerId: `p${i}`,
        upstreamModel: 'm',
        priority: 0,
        weight: 1,
        state: 'up',
        reason: 'ok',
        latencyMs: 100,
        ...c,
      })),
    },
  };
}

const last = { table: table({}, {}), at: 0 };

describe('publishDecision', () => {
  it('publishes the first table, and any state or ranking change at once', () => {
    expect(publishDecision(null, table({}), 0, timing)).toBe('new');
    expect(publishDecision(last, table({}, { state: 'down' }), 1, timing)).toBe('new');
    expect(publishDecision(last, table({ providerId: 'p1' }, { providerId: 'p0' }), 1, timing)).toBe('new');
  });

  it('holds reason and small figure changes until the probe interval', () => {
    const draft = table({ reason: 'changed', latencyMs: 110 }, {});
    expect(publishDecision(last, draft, 4_999, timing)).toBeNull();
    expect(publishDecision(last, draft, 5_000, timing)).toBe('new');
  });

  it('publishes a latency move of more than a quarter within a second', () => {
    expect(publishDecision(last, table({ latencyMs: 130 }, {}), 999, timing)).toBeNull();
    expect(publishDecision(last, table({ latencyMs: 130 }, {}), 1_000, timing)).toBe('new');
    expect(publishDecision(last, table({}, { latencyMs: null }), 1_000, timing)).toBe('new');
    expect(publishDecision(last, table({ latencyMs: 120 }, {}), 1_000, timing)).toBeNull();
  });

  it('republishes an unchanged table every refreshMs, and nothing in between', () => {
    expect(publishDecision(last, table({}, {}), 29_999, timing)).toBeNull();
    expect(publishDecision(last, table({}, {}), 30_000, timing)).toBe('same');
  });
});
