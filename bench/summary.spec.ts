import { describe, expect, it } from '@jest/globals';
import { type BenchReport } from './report.js';
import { benchReport, cellResult, edgeRuntimeSummary } from './report-fixtures.js';
import { summaryBullets } from './summary.js';
import { type CellResult, type Mode } from './workloads.js';

/** This file's figures: a CPU split whose sums the bullets state. */
const cell = (mode: Mode, concurrency: number, over: Partial<CellResult> = {}): CellResult =>
  cellResult(mode, concurrency, {
    cpuUsPerRequest: { edge: 100, worker: 50, router: 10, redis: 20, postgres: 30, mock: 40 },
    ...over,
  });

const CELLS = [
  cell('non-stream', 1, {
    addedP50Ms: 0.21,
    addedP99Ms: 1.5,
    throughputRatio: 0.95,
    edgeCpuUsPerRequest: 140,
  }),
  cell('non-stream', 32, { throughputRatio: 0.8, edgeCorePct: 75.04, edgeCpuUsPerRequest: 110.4 }),
  cell('stream', 1, { addedP50Ms: -0.1, addedP99Ms: 0.7 }),
  cell('stream', 32, { throughputRatio: 0.85, machineBusyPct: { direct: 30, gateway: 88.8 } }),
];

const report = (over: Partial<BenchReport> = {}): BenchReport =>
  benchReport(CELLS, {
    ttft: { requests: 300, direct: { p50Ms: 5, p99Ms: 6 }, gateway: { p50Ms: 5.3, p99Ms: 7.25 } },
    edgePeakRssMb: 223.4,
    edgeBootRssMb: 98.6,
    ...over,
  });

describe('summaryBullets', () => {
  it('gives latency, throughput and CPU, edge CPU and memory, from the figures of the run', () => {
    const b = summaryBullets(report());
    expect(b).toEqual([
      'Added latency at concurrency 1, p50: non-stream +0.21 ms, stream -0.10 ms; ' +
        'p99: non-stream +1.50 ms, stream +0.70 ms. ' +
        'Added time to first token: +0.30 ms at p50, +1.25 ms at p99.',
      expect.stringContaining(
        'Throughput ratio (gateway/direct) 0.80 to 0.95; the edge never used more than 75.0 % of its core',
      ),
      'Edge CPU per non-stream request: 140 µs at c=1, 110 µs at c=32.',
      'Edge memory: 99 MB RSS after boot, 223 MB peak (VmHWM) by the end.',
    ]);
    // The heaviest non-stream cell's CPU by process: 250 µs in all, pipeline = worker + Redis + Postgres.
    expect(b[1]).toContain(
      'At non-stream c=32 a gateway request costs 250 µs of CPU over all processes: edge 100 µs, ' +
        'log pipeline (worker 50 µs, Redis 20 µs, Postgres 30 µs) 100 µs, mock 40 µs; ' +
        'called directly the mock costs 35 µs.',
    );
  });

  it('says what the edge memory was made of at the highest RSS a counted run sampled', () => {
    const runtime = (rss: number) => ({
      loopDelayP99Ms: 1,
      loopDelayP999Ms: 2,
      loopDelayMaxMs: 3,
      gcPausesPerSecond: 1,
      gcMsPerSecond: 1,
      gcYoungMsPerSecond: Number.NaN,
      gcOldMsPerSecond: Number.NaN,
      gcMaxMs: 1,
      gcOver5msPerSecond: 0,
      allocatedBytesPerRequest: Number.NaN,
      promotedBytesPerRequest: Number.NaN,
      requestTimes: null,
      memoryAtPeak: {
        rss,
        newSpace: 14.3,
        oldSpace: 78.5,
        largeObjects: 12.7,
        otherSpaces: 12.2,
        arrayBuffers: 3.7,
        external: 8.1,
      },
    });
    const cells = [
      cell('non-stream', 32, { edgeRuntime: runtime(196) }),
      cell('stream', 32, { edgeRuntime: runtime(249.2) }),
    ];
    const memory = summaryBullets(report({ cells })).find((b) => b.startsWith('Edge memory'));
    // Heap 117.7, buffers 11.8: the rest of the 249.2 MB is 119.7.
    expect(memory).toBe(
      'Edge memory: 99 MB RSS after boot, 223 MB peak (VmHWM) by the end. At the highest RSS sampled in a ' +
        'counted run (249 MB, stream c=32): V8 heap 118 MB (young 14, old 79, large objects 13, code and the ' +
        "rest 12), buffers and other external memory 12 MB, and 120 MB outside both (the Node binary's " +
        'pages, native allocations, thread stacks).',
    );
  });

  it("names the edge's RSS once its tokenizer's tables were loaded, where the bench read it", () => {
    const memory = summaryBullets(report({ edgeTokenizerRssMb: 171.4 })).find((b) =>
      b.startsWith('Edge memory'),
    );
    expect(memory).toMatch(
      /^Edge memory: \d+ MB RSS after boot, 171 MB once it loaded its tokenizer's tables \(before any load\), /,
    );
  });

  it('says what the c=1 tail is made of where the edge runtime figures were read', () => {
    const runtime = {
      loopDelayP99Ms: 4.2,
      loopDelayP999Ms: 15.04,
      loopDelayMaxMs: 20,
      gcPausesPerSecond: 4.55,
      gcMsPerSecond: 25.8,
      gcYoungMsPerSecond: Number.NaN,
      gcOldMsPerSecond: Number.NaN,
      gcMaxMs: 11.14,
      gcOver5msPerSecond: 2.06,
      allocatedBytesPerRequest: Number.NaN,
      promotedBytesPerRequest: Number.NaN,
      requestTimes: null,
      memoryAtPeak: null,
    };
    const tailed = cell('non-stream', 1, {
      addedP99Ms: 11.72,
      direct: { rps: 1000, p50Ms: 0.04, p99Ms: 2.11 },
      edgeRuntime: runtime,
      cpuWaitUsPerRequest: { direct: { mock: 9 }, gateway: { edge: 96, mock: 170 } },
    });
    const bullets = summaryBullets(report({ cells: [tailed, ...CELLS.slice(1)] }));
    expect(bullets.filter((b) => b.startsWith('Tail'))).toEqual([
      "Tail, non-stream c=1 (added p99 +11.72 ms): the edge's event loop was late by 4.20 ms at p99 and " +
        '15.04 ms at p99.9; GC paused it 4.5 times/s for 25.8 ms/s (longest 11.1 ms, 2.1/s over 5 ms); its main ' +
        'thread waited 96 µs/req for its CPU; the mock waited 170 µs/req in gateway runs and 9 in direct ones, ' +
        'whose p99 was 2.11 ms.',
    ]);
    // No runtime figures (several edge processes, or the profiled edge): no tail bullet.
    expect(summaryBullets(report()).some((b) => b.startsWith('Tail'))).toBe(false);
  });

  it('adds the bytes a request allocated and promoted to the tail bullet where the hook counted them', () => {
    const runtime = {
      loopDelayP99Ms: 1,
      loopDelayP999Ms: 2,
      loopDelayMaxMs: 3,
      gcPausesPerSecond: 1,
      gcMsPerSecond: 1,
      gcYoungMsPerSecond: Number.NaN,
      gcOldMsPerSecond: Number.NaN,
      gcMaxMs: 1,
      gcOver5msPerSecond: 0,
      allocatedBytesPerRequest: 47_360,
      promotedBytesPerRequest: 3584,
      requestTimes: null,
      memoryAtPeak: null,
    };
    const [tail] = summaryBullets(
      report({ cells: [cell('non-stream', 1, { edgeRuntime: runtime })] }),
    ).filter((b) => b.startsWith('Tail'));
    expect(tail).toMatch(
      / Each request allocated 46\.3 KB on the edge's heap and promoted 3\.5 KB to its old generation\.$/,
    );
  });

  it("adds where the request's time went inside the edge to the tail bullet where the hook timed it", () => {
    const q = (p50: number, p99: number) => ({ p50, p99, p999: p99 * 2 });
    const runtime = edgeRuntimeSummary({
      requestTimes: { held: q(0.5, 4.16), upstream: q(0.25, 3.621), own: q(0.22, 0.834) },
    });
    const [tail] = summaryBullets(
      report({
        cells: [cell('non-stream', 1, { edgeRuntime: runtime, gateway: { rps: 1, p50Ms: 0.6, p99Ms: 18 } })],
      }),
    ).filter((b) => b.startsWith('Tail'));
    expect(tail).toMatch(
      / The edge held a request 4\.16 ms at p99 \(the client saw 18\.00 ms\), its upstream call took 3\.62 ms at p99, and its own time was 0\.22 ms at p50 and 0\.83 ms at p99\.$/,
    );
  });

  it('blames the shared machine only when every loaded gateway run kept it busy', () => {
    expect(summaryBullets(report())[1]).toContain(
      "while the machine's 2 CPUs were at least 88.8 % busy in every gateway run above concurrency 1",
    );
    const idle = CELLS.map((c) =>
      c.cell.concurrency === 32 && c.cell.mode === 'stream'
        ? { ...c, machineBusyPct: { direct: 30, gateway: 84.9 } }
        : c,
    );
    expect(summaryBullets(report({ cells: idle }))[1]).not.toContain('busy in every gateway run');
  });

  it('leaves out the concurrency-1 bullet when no cell ran at concurrency 1', () => {
    const b = summaryBullets(report({ cells: CELLS.filter((c) => c.cell.concurrency > 1) }));
    expect(b[0]).toMatch(/^Throughput ratio/);
    expect(b).toHaveLength(3);
  });

  it('says why the peer was not measured, or compares it where it ran', () => {
    const unavailable = report({
      peer: { status: 'unavailable', name: 'portkey', reason: 'npm is offline' },
    });
    expect(summaryBullets(unavailable)).toContain('portkey was not measured: npm is offline');

    const peer = { rps: 891.2, p50Ms: 3, p99Ms: 9, addedP50Ms: 2.5, addedP99Ms: 7, throughputRatio: 0.4 };
    const cells = CELLS.map((c) =>
      c.cell.mode === 'non-stream'
        ? { ...c, peer: { ...peer, cpuUsPerRequest: 1119.4, corePct: 99, peakRssMb: 80, errors: 2 } }
        : c,
    );
    const measured = report({
      cells,
      peer: {
        status: 'measured',
        label: 'Portkey 1.15.2',
        version: '1.15.2',
        notes: [],
        streamError: 'HTTP 500',
      },
      ttft: { ...report().ttft, peer: { p50Ms: 34.06, p99Ms: 40 } },
    });
    expect(summaryBullets(measured)[4]).toBe(
      'Portkey 1.15.2, same mock, load and pinning, without auth, quota or logging: ' +
        'non-stream c=32 891 req/s and 1119 µs CPU/req (gateway 900 req/s, 110 µs). ' +
        'Added p50 at concurrency 1: non-stream +2.50 ms (gateway +0.21 ms). ' +
        'Added TTFT at p50: +29.06 ms (gateway +0.30 ms). 4 of its requests failed. Streams not measured: HTTP 500.',
    );
  });

  it('gives the speed-up of each process count over one, and the edge profile', () => {
    const row = {
      cpus: '0',
      concurrency: 32,
      directRps: 3000,
      throughputRatio: 0.7,
      gatewayP50Ms: 10,
      gatewayP99Ms: 20,
    };
    const rest = { edgeCpuUsPerRequest: 357, edgePeakRssMb: 223, errors: 0, machineBusyPct: 99 };
    const b = summaryBullets(
      report({
        scaling: [
          { ...row, ...rest, processes: 1, speedup: null, gatewayRps: 2000, edgeCorePct: 100 },
          { ...row, ...rest, processes: 2, cpus: '0,1', speedup: 1.14, gatewayRps: 2280.4, edgeCorePct: 150 },
        ],
        profile: {
          cell: { mode: 'non-stream', concurrency: 32 },
          rps: 2000,
          file: '/tmp/edge.cpuprofile',
          summary: {
            sampledMs: 1000,
            idlePct: 5,
            components: [
              { name: 'our code (apps/edge, libs)', pct: 40 },
              { name: 'Fastify', pct: 20 },
              { name: 'BullMQ (log enqueue)', pct: 12.5 },
              { name: 'ioredis', pct: 7.25 },
              { name: 'V8 garbage collector', pct: 6 },
            ],
            ourFunctions: [],
            topFunctions: [],
            paths: [],
          },
        },
      }),
    );
    expect(b[4]).toBe(
      'Edge processes: 2 processes at c=32 served 1.14x the requests/s of one (2280 req/s, 1.50 cores of edge CPU).' +
        " The machine's 2 CPUs were at least 99.0 % busy in every scaling run: the mock, wrk, worker, Redis and " +
        'Postgres share them, so a second edge process finds no idle CPU here (see Scaling).',
    );
    expect(b[5]).toBe(
      'Edge profile (non-stream, c=32): our code (apps/edge, libs) 40.0 %; Fastify 20.0 %; BullMQ (log enqueue) 12.5 %. ' +
        'Redis clients (log shipping, quota admission and settle: BullMQ and ioredis, their socket writes included) 19.8 %, GC 6.0 %.',
    );
  });
});
