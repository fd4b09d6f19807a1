import { describe, expect, it } from '@jest/globals';
import { leftSection } from './left.js';
import { benchReport, cellResult, edgeRuntimeSummary, sideResult } from './report-fixtures.js';
import { type EdgeRuntimeSummary, type PeerCellResult } from './workloads.js';

const q = (p50: number, p99: number) => ({ p50, p99, p999: p99 * 2 });

const runtime = (over: Partial<EdgeRuntimeSummary> = {}): EdgeRuntimeSummary =>
  edgeRuntimeSummary({
    gcOver5msPerSecond: 0.5,
    allocatedBytesPerRequest: 46_080,
    promotedBytesPerRequest: 5120,
    requestTimes: { held: q(0.5, 4.2), upstream: q(0.25, 3.6), own: q(0.22, 0.83) },
    ...over,
  });

const floor = (over: Partial<PeerCellResult> = {}): PeerCellResult =>
  sideResult({
    rps: 2000,
    p50Ms: 0.2,
    p99Ms: 9,
    addedP50Ms: 0.15,
    addedP99Ms: 7.5,
    throughputRatio: 0.5,
    cpuUsPerRequest: 80,
    corePct: 60,
    peakRssMb: 111.6,
    runtime: runtime({
      allocatedBytesPerRequest: 12_800,
      requestTimes: { held: q(0.3, 3), upstream: q(0.2, 2.9), own: q(0.05, 0.1) },
    }),
    ...over,
  });

const c1 = (over = {}) =>
  cellResult('non-stream', 1, {
    gateway: { rps: 1800, p50Ms: 0.42, p99Ms: 14.07 },
    direct: { rps: 19000, p50Ms: 0.05, p99Ms: 0.75 },
    addedP50Ms: 0.37,
    addedP99Ms: 13.32,
    edgeCpuUsPerRequest: 355,
    edgeRuntime: runtime(),
    floor: floor(),
    ...over,
  });

const bullets = (text: string): string[] => text.split('\n').map((l) => l.replace(/^- /, ''));

describe('leftSection', () => {
  it("splits the c=1 p99 into the edge's own time, the upstream call and the floor proxy's share", () => {
    const [tail] = bullets(leftSection(benchReport([c1()])));
    expect(tail).toContain(
      "**The added p99 at one connection (non-stream +13.32 ms) is mostly outside the edge's code.**",
    );
    expect(tail).toContain(
      'the edge held its requests 4.20 ms at p99, waiting for the mock most of it (the upstream call 3.60 ms at p99)',
    );
    expect(tail).toContain('its own time was 0.83 ms at p99 (0.22 ms at p50');
    expect(tail).toContain(
      "The bare Node proxy in the edge's place added +7.50 ms at p99 with an own time of 0.10 ms at p99",
    );
    // 0.5 long pauses a second against 18 slow requests a second.
    expect(tail).toContain('collections are not what the p99 is made of.');
    expect(tail).toContain('The bare proxy alone is at or over the target (+7.50 ms against +1.50 ms)');
  });

  it('says what the floor leaves of a target it is under, and marks a CPU target the floor is over', () => {
    const text = leftSection(
      benchReport([
        c1(),
        cellResult('non-stream', 32, { floor: floor() }),
        cellResult('stream', 32, { edgeCpuUsPerRequest: 400, floor: floor({ cpuUsPerRequest: 260 }) }),
      ]),
    );
    // p50: the floor added 0.15 of the 0.2 ms.
    expect(text).toContain('The bare proxy leaves 0.05 ms of the target for the gateway');
    expect(text).toContain(
      "stream c=32 400 µs against the bare proxy's 260 µs (over the 250 µs target by itself)",
    );
  });

  it('says GC accounts for part of the tail when long pauses come as often as a quarter of the slow requests', () => {
    const [tail] = bullets(
      leftSection(benchReport([c1({ edgeRuntime: runtime({ gcOver5msPerSecond: 6 }) })])),
    );
    expect(tail).toContain('account for part of it.');
    expect(tail).not.toContain('not what the p99 is made of');
  });

  it('leaves out the tail bullet without request times, and the floor clauses without a floor', () => {
    const text = leftSection(
      benchReport([c1({ edgeRuntime: runtime({ requestTimes: null }), floor: null })]),
    );
    expect(text).not.toContain('added p99 at one connection');
    expect(text).not.toContain('bare Node proxy added');
  });

  it('compares CPU, TTFT, bytes and memory with the floor proxy', () => {
    const loaded = cellResult('non-stream', 32, {
      edgeCpuUsPerRequest: 199,
      edgeRuntime: runtime({ allocatedBytesPerRequest: 44_544 }),
      floor: floor(),
    });
    const text = leftSection(
      benchReport([c1(), loaded], {
        ttft: {
          requests: 100,
          direct: { p50Ms: 6, p99Ms: 7 },
          gateway: { p50Ms: 6.67, p99Ms: 10 },
          floor: { p50Ms: 6.2, p99Ms: 8 },
        },
        edgeBootRssMb: 137,
        edgeTokenizerRssMb: 207.4,
        edgePeakRssMb: 237,
      }),
    );
    expect(text).toContain("non-stream c=32 199 µs against the bare proxy's 80 µs");
    expect(text).toContain(
      '**Time to first token** (added +0.67 ms at p50, the bare Node proxy +0.20 ms; target 0.3 ms)',
    );
    expect(text).toContain('non-stream c=32 43.5 KB (before: 61.7 KB, half: 30.9 KB; bare proxy 12.5 KB)');
    expect(text).toContain("non-stream c=32 199 µs against the bare proxy's 80 µs (targets 100 and 250 µs)");
    expect(text).toContain(
      "**Peak RSS** 237 MB (target 200 MB): 137 MB after boot, 207 MB once its tokenizer's tables were loaded",
    );
    expect(text).toContain(': 70 MB); the bare Node proxy peaked at 112 MB.');
  });
});
