import { describe, expect, it } from '@jest/globals';
import { ALLOCATION_BEFORE_KB, type BenchReport, TARGETS, verdicts, verdictTable } from './report.js';
import {
  benchReport as report,
  cellResult as cell,
  edgeRuntimeSummary,
  sideResult,
} from './report-fixtures.js';
import { type Mode } from './workloads.js';

const ALL = [cell('non-stream', 1), cell('stream', 1), cell('non-stream', 32), cell('stream', 64)];
/** verdicts() in its fixed order: p50 c=1, p99 c=1, edge CPU, pipeline CPU, TTFT, peak RSS, allocation. */
const [P50, P99, EDGE_CPU, PIPELINE, TTFT, RSS, ALLOCATION] = [0, 1, 2, 3, 4, 5, 6];
const met = (r: BenchReport): (boolean | null)[] => verdicts(r).map((v) => v.met);

describe('verdicts', () => {
  it('meets every target when every figure is under it', () => {
    const v = verdicts(report(ALL));
    // The fixtures' cells have no runtime figures: allocation is not measured.
    expect(v.map((x) => x.met)).toEqual([true, true, true, true, true, true, null]);
    expect(v[P50]!.target).toBe(`added p50 latency at concurrency 1 ≤ ${TARGETS.addedP50AtC1Ms} ms`);
    expect(v[P50]!.measured).toBe('non-stream +0.20 ms, stream +0.20 ms');
    expect(v[P99]!.measured).toBe('non-stream +0.50 ms, stream +0.50 ms');
    expect(v[EDGE_CPU]!.measured).toBe('non-stream c=32 100 µs, stream c=64 100 µs');
    expect(v[PIPELINE]!.measured).toBe('non-stream c=32 200 µs');
    expect(v[TTFT]!.measured).toBe('p50 +0.30 ms, p99 +1.00 ms');
    expect(v[RSS]!.measured).toBe('150 MB (100 MB after boot, before load)');
  });

  it('says not measured for the cell targets when no cell ran at that concurrency', () => {
    const none = verdicts(report([]));
    expect(none.map((x) => x.met)).toEqual([null, null, null, null, true, true, null]);
    expect(none.slice(0, 4).map((x) => x.measured)).toEqual(Array(4).fill('not measured'));
    // c=16 is neither concurrency 1 nor under load; a stream cell has no pipeline target.
    expect(met(report([cell('non-stream', 16, { edgeCpuUsPerRequest: 9999 })]))).toEqual([
      null,
      null,
      null,
      null,
      true,
      true,
      null,
    ]);
    expect(met(report([cell('stream', 32)]))[PIPELINE]).toBeNull();
  });

  it('meets the latency targets at concurrency 1 at the target, and misses them when one mode is over', () => {
    const at = (p50: number, p99: number) =>
      met(report([cell('non-stream', 1), cell('stream', 1, { addedP50Ms: p50, addedP99Ms: p99 })]));
    const { addedP50AtC1Ms: p50, addedP99AtC1Ms: p99 } = TARGETS;
    expect(at(p50 + 0.01, 0.5).slice(0, 2)).toEqual([false, true]);
    expect(at(0.1, p99 + 0.01).slice(0, 2)).toEqual([true, false]);
    expect(at(p50, p99).slice(0, 2)).toEqual([true, true]);
    // Under load the latency does not count.
    expect(met(report([cell('non-stream', 32, { addedP50Ms: 50, addedP99Ms: 90 })])).slice(0, 2)).toEqual([
      null,
      null,
    ]);
  });

  it('judges edge CPU under load against the target of each mode', () => {
    const edge = (mode: Mode, us: number) =>
      met(report([cell(mode, 32, { edgeCpuUsPerRequest: us })]))[EDGE_CPU];
    const { 'non-stream': nonStream, stream } = TARGETS.edgeCpuUsUnderLoad;
    expect(edge('non-stream', nonStream)).toBe(true);
    expect(edge('non-stream', nonStream + 1)).toBe(false);
    expect(edge('stream', nonStream + 1)).toBe(true);
    expect(edge('stream', stream)).toBe(true);
    expect(edge('stream', stream + 1)).toBe(false);
    expect(
      met(report([cell('stream', 64), cell('non-stream', 64, { edgeCpuUsPerRequest: 130 })]))[EDGE_CPU],
    ).toBe(false);
  });

  it('sums edge, worker, router, Redis and Postgres (not the mock) for the whole pipeline', () => {
    const pipeline = (cpu: Record<string, number>) =>
      verdicts(report([cell('non-stream', 64, { cpuUsPerRequest: cpu })]))[PIPELINE]!;
    const at300 = pipeline({ edge: 100, worker: 100, router: 20, redis: 40, postgres: 40, mock: 900 });
    expect(at300.met).toBe(true);
    expect(at300.measured).toBe('non-stream c=64 300 µs');
    expect(pipeline({ edge: 100, worker: 100, router: 20, redis: 40, postgres: 41, mock: 1 }).met).toBe(
      false,
    );
    // Stream cells have no pipeline target, however costly.
    const withStream = [cell('non-stream', 32), cell('stream', 32, { cpuUsPerRequest: { edge: 5000 } })];
    expect(met(report(withStream))[PIPELINE]).toBe(true);
  });

  it('says not measured for the whole pipeline when a process group has no figure (no local Redis)', () => {
    const noRedis = { edge: 100, worker: 50, router: 10, postgres: 20, mock: 400 };
    const v = verdicts(report([cell('non-stream', 32, { cpuUsPerRequest: noRedis })]))[PIPELINE]!;
    expect(v.met).toBeNull();
    expect(v.measured).toBe('non-stream c=32 n/a µs');
  });

  it('prints n/a, not NaN, for a figure that could not be taken', () => {
    const r = report(ALL, {
      ttft: { requests: 300, direct: { p50Ms: 5, p99Ms: 6 }, gateway: { p50Ms: Number.NaN, p99Ms: 7 } },
    });
    expect(verdicts(r)[TTFT]!.measured).toBe('p50 n/a ms, p99 +1.00 ms');
  });

  it('takes added TTFT as gateway minus direct at p50 and p99', () => {
    const ttft = (p50: number, p99: number) =>
      verdicts(
        report(ALL, {
          ttft: { requests: 1, direct: { p50Ms: 5, p99Ms: 6 }, gateway: { p50Ms: p50, p99Ms: p99 } },
        }),
      )[TTFT]!;
    expect(ttft(5.5, 6).met).toBe(false);
    expect(ttft(5.3, 8).met).toBe(true);
    expect(ttft(5.1, 8.01).met).toBe(false);
    expect(ttft(4.9, 7).measured).toBe('p50 -0.10 ms, p99 +1.00 ms');
  });

  it('misses the peak RSS target above 200 MB', () => {
    expect(met(report(ALL, { edgePeakRssMb: TARGETS.peakRssMb + 0.1 }))[RSS]).toBe(false);
    expect(met(report(ALL, { edgePeakRssMb: TARGETS.peakRssMb }))[RSS]).toBe(true);
    expect(verdicts(report(ALL, { edgePeakRssMb: 1234.4 }))[RSS]!.measured).toBe(
      '1,234 MB (100 MB after boot, before load)',
    );
    const floor = {
      ...ALL[0]!,
      floor: sideResult({ peakRssMb: 111.6 }),
    };
    expect(
      verdicts(report([floor, ...ALL.slice(1)], { edgePeakRssMb: 230, edgeTokenizerRssMb: 180.2 }))[RSS]!
        .measured,
    ).toBe(
      "230 MB (100 MB after boot, before load; 180 MB once the tokenizer's tables were loaded); floor (bare Node proxy): 112 MB",
    );
  });
});

describe('verdictTable', () => {
  it('has one row per target with its word', () => {
    const lines = verdictTable(report([cell('non-stream', 1, { addedP99Ms: 3 })])).split('\n');
    expect(lines).toHaveLength(2 + 7);
    // The last column of each row: `| target | measured | verdict |`.
    expect(lines.slice(2).map((l) => l.slice(2, -2).split(' | ').at(-1))).toEqual([
      'met',
      '**missed**',
      'not measured',
      'not measured',
      'met',
      'met',
      'not measured',
    ]);
  });
});

describe('the p99 verdict', () => {
  it("names the edge's own time at p99 beside the added p99 where the hook timed it", () => {
    const q = (p99: number) => ({ p50: 0.1, p99, p999: 2 });
    const edgeRuntime = edgeRuntimeSummary({ requestTimes: { held: q(4), upstream: q(3), own: q(0.834) } });
    const v = verdicts(
      report([
        cell('non-stream', 1, { addedP99Ms: 13.3, edgeRuntime }),
        cell('stream', 1, { addedP99Ms: 7 }),
      ]),
    );
    expect(v[1]!.measured).toBe("non-stream +13.30 ms (the edge's own time: p99 0.83 ms), stream +7.00 ms");
    expect(v[1]!.met).toBe(false);
  });
});

describe('the allocation verdict', () => {
  const runtime = (kb: number) => ({
    loopDelayP99Ms: 1,
    loopDelayP999Ms: 1,
    loopDelayMaxMs: 1,
    gcPausesPerSecond: 1,
    gcMsPerSecond: 1,
    gcYoungMsPerSecond: 1,
    gcOldMsPerSecond: 0,
    gcMaxMs: 1,
    gcOver5msPerSecond: 0,
    allocatedBytesPerRequest: kb * 1024,
    promotedBytesPerRequest: 0,
    requestTimes: null,
    memoryAtPeak: null,
  });
  const at = (mode: Mode, concurrency: number, kb: number) =>
    cell(mode, concurrency, { edgeRuntime: runtime(kb) });
  const half = (mode: Mode, c: 'c1' | 'loaded'): number => ALLOCATION_BEFORE_KB[mode][c] / 2;

  it('is met at half of before issue 25 or less, in each mode at c=1 and under load', () => {
    const v = verdicts(
      report([
        at('non-stream', 1, half('non-stream', 'c1')),
        at('non-stream', 32, half('non-stream', 'loaded') - 1),
        at('stream', 1, half('stream', 'c1')),
        at('stream', 64, 20),
      ]),
    )[ALLOCATION]!;
    expect(v.met).toBe(true);
    expect(v.measured).toBe(
      'non-stream c=1 36.2 KB (50 %), non-stream c=32 29.9 KB (48 %), stream c=1 61.8 KB (50 %), stream c=64 20.0 KB (21 %)',
    );
  });

  it('is missed by one cell over half, and leaves out the concurrencies between 1 and under load', () => {
    expect(
      met(report([at('non-stream', 1, 30), at('stream', 32, half('stream', 'loaded') + 0.1)]))[ALLOCATION],
    ).toBe(false);
    const between = verdicts(report([at('non-stream', 16, 500)]))[ALLOCATION]!;
    expect([between.met, between.measured]).toEqual([null, 'not measured']);
  });
});
