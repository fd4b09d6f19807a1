import { describe, expect, it } from '@jest/globals';
import { runSample } from './report-fixtures.js';
import { roundOrder, runtimeSummary } from './workloads.js';

describe('roundOrder', () => {
  it('alternates two targets round by round', () => {
    const t = ['direct', 'gateway'];
    expect([0, 1, 2, 3].map((i) => roundOrder(t, i))).toEqual([
      ['direct', 'gateway'],
      ['gateway', 'direct'],
      ['direct', 'gateway'],
      ['gateway', 'direct'],
    ]);
  });

  it('puts each of three targets in each position once over three rounds', () => {
    const t = ['direct', 'gateway', 'peer'];
    const rounds = [0, 1, 2].map((i) => roundOrder(t, i));
    expect(rounds).toEqual([
      ['direct', 'gateway', 'peer'],
      ['gateway', 'peer', 'direct'],
      ['peer', 'direct', 'gateway'],
    ]);
    for (let position = 0; position < 3; position++)
      expect(new Set(rounds.map((r) => r[position]))).toEqual(new Set(t));
    expect(t).toEqual(['direct', 'gateway', 'peer']);
  });

  it('keeps one target or none as it is', () => {
    expect(roundOrder(['direct'], 5)).toEqual(['direct']);
    expect(roundOrder([], 2)).toEqual([]);
  });
});

describe('runtimeSummary', () => {
  const heap = (allocatedBytes: number, promotedBytes: number) => ({
    allocatedBytes,
    promotedBytes,
    youngCollections: 1,
    fullCollections: 0,
  });

  it('takes the median over the gateway runs of bytes allocated and promoted per request of each run', () => {
    const s = runtimeSummary([
      { direct: runSample(), gateway: runSample({ requests: 1000 }, heap(30_000_000, 1_000_000)) },
      { direct: runSample(), gateway: runSample({ requests: 4000 }, heap(40_000_000, 8_000_000)) },
      { direct: runSample(), gateway: runSample({ requests: 500 }, heap(25_000_000, 1_500_000)) },
    ]);
    // Per request: 30,000, 10,000, 50,000 allocated; 1,000, 2,000, 3,000 promoted.
    expect(s?.allocatedBytesPerRequest).toBe(30_000);
    expect(s?.promotedBytesPerRequest).toBe(2000);
  });

  it('is NaN for runs of a hook without heap figures, and null without any runtime figures', () => {
    const old = runSample({}, heap(1, 1));
    const { heap: _, ...withoutHeap } = old.edgeRuntime!;
    const s = runtimeSummary([{ direct: runSample(), gateway: { ...old, edgeRuntime: withoutHeap } }]);
    expect(s?.allocatedBytesPerRequest).toBeNaN();
    expect(s?.promotedBytesPerRequest).toBeNaN();
    expect(runtimeSummary([{ direct: runSample(), gateway: runSample() }])).toBeNull();
  });

  it('splits GC time per second between the young generation and the old one', () => {
    const run = runSample({ seconds: 10 }, heap(1, 1));
    const byKind = {
      scavenge: { count: 40, totalMs: 30, maxMs: 2 },
      'mark-compact': { count: 1, totalMs: 12, maxMs: 12 },
      'incremental-marking': { count: 5, totalMs: 3, maxMs: 1 },
      'weak-callbacks': { count: 1, totalMs: 1, maxMs: 1 },
    };
    const gateway = { ...run, edgeRuntime: { ...run.edgeRuntime!, gc: { ...run.edgeRuntime!.gc, byKind } } };
    const s = runtimeSummary([{ direct: runSample(), gateway }]);
    expect(s?.gcYoungMsPerSecond).toBe(3);
    expect(s?.gcOldMsPerSecond).toBe(1.5);
  });

  it('takes the median over the gateway runs of each percentile of the request times, null without them', () => {
    const q = (p50: number, p99: number, p999: number) => ({ p50, p99, p999, max: p999, count: 10 });
    const withTimes = (held: number, upstream: number, own: number) => {
      const run = runSample({}, heap(1, 1));
      const times = {
        held: q(held, held * 2, held * 3),
        upstream: q(upstream, upstream * 2, upstream * 3),
        own: q(own, own * 2, own * 3),
      };
      return { direct: runSample(), gateway: { ...run, edgeRuntime: { ...run.edgeRuntime!, times } } };
    };
    const s = runtimeSummary([withTimes(1, 0.5, 0.25), withTimes(3, 2, 1), withTimes(2, 1, 4)]);
    expect(s?.requestTimes).toEqual({
      held: { p50: 2, p99: 4, p999: 6 },
      upstream: { p50: 1, p99: 2, p999: 3 },
      own: { p50: 1, p99: 2, p999: 3 },
    });
    expect(
      runtimeSummary([{ direct: runSample(), gateway: runSample({}, heap(1, 1)) }])?.requestTimes,
    ).toBeNull();
  });
});
