import { describe, expect, it } from '@jest/globals';
import {
  cpuByProcessTable,
  heapPerRequest,
  heapTable,
  resultsTable,
  scalingTable,
  sharesTable,
  insideTable,
  tailTable,
  ttftTable,
  withRange,
} from './report.js';
import { cellResult, edgeRuntimeSummary, runSample, sideResult } from './report-fixtures.js';
import { type ScalingRow } from './scaling.js';
import { type CellResult, type Mode } from './workloads.js';

/** Figures with decimals, so each table's rounding shows. */
const cell = (mode: Mode, concurrency: number, over: Partial<CellResult> = {}): CellResult =>
  cellResult(mode, concurrency, {
    direct: { rps: 12345.6, p50Ms: 1, p99Ms: 2.345 },
    gateway: { rps: 900.4, p50Ms: 1.2, p99Ms: 2.5 },
    addedP99Ms: -0.05,
    edgeCpuUsPerRequest: 100.4,
    edgeCorePct: 55.55,
    cpuUsPerRequest: { edge: 100, worker: 50, router: 10, redis: 20, postgres: 30, mock: 40 },
    machineBusyPct: { direct: 40, gateway: 90.25 },
    edgePeakRssMb: 150.6,
    errors: 3,
    cpuWaitUsPerRequest: { direct: { mock: 3.4 }, gateway: { edge: 5, mock: 6.6, worker: 7 } },
    ...over,
  });

/** The body rows of a markdown table (the header and its rule dropped), whole or split into cells. */
const lines = (table: string): string[] => table.split('\n').slice(2);
const rows = (table: string): string[][] => lines(table).map((l) => l.slice(2, -2).split(' | '));
const header = (table: string): string[] => table.split('\n')[0]!.slice(2, -2).split(' | ');

describe('resultsTable', () => {
  it('has a direct and a gateway row per cell, figures formatted', () => {
    const t = resultsTable([cell('non-stream', 1), cell('stream', 64, { addedP50Ms: 1.5 })]);
    expect(header(t)).toHaveLength(13);
    expect(lines(t)).toEqual([
      '| non-stream | 1 | direct (mock) | 12,346 |  | 1.00 |  | 2.35 |  |  |  |  |  |',
      '| non-stream | 1 | gateway | 900 | 0.90 | 1.20 | +0.20 | 2.50 | -0.05 | 100 | 55.5 % | 151 | 3 |',
      '| stream | 64 | direct (mock) | 12,346 |  | 1.00 |  | 2.35 |  |  |  |  |  |',
      '| stream | 64 | gateway | 900 | 0.90 | 1.20 | +1.50 | 2.50 | -0.05 | 100 | 55.5 % | 151 | 3 |',
    ]);
  });

  it('says n/a for a CPU or memory figure that is missing', () => {
    const [, gateway] = rows(
      resultsTable([cell('non-stream', 32, { edgeCpuUsPerRequest: Number.NaN, edgePeakRssMb: Number.NaN })]),
    );
    expect(gateway![9]).toBe('n/a');
    expect(gateway![11]).toBe('n/a');
  });

  it('adds the peer row when it ran that cell, and says not measured when it did not', () => {
    const peer = {
      rps: 450.2,
      p50Ms: 3,
      p99Ms: 9.999,
      addedP50Ms: 2,
      addedP99Ms: 7.654,
      throughputRatio: 0.45,
      cpuUsPerRequest: 1119.4,
      corePct: 99.96,
      peakRssMb: Number.NaN,
      errors: 7,
    };
    const t = rows(resultsTable([cell('non-stream', 32, { peer }), cell('stream', 32)], 'Portkey 1.15.2'));
    expect(t).toHaveLength(6);
    expect(t[2]!.join(' | ')).toBe(
      'non-stream | 32 | Portkey 1.15.2 | 450 | 0.45 | 3.00 | +2.00 | 10.00 | +7.65 | 1,119 | 100.0 % | n/a | 7',
    );
    expect(t[5]).toEqual(['stream', '32', 'Portkey 1.15.2', 'not measured', ...Array(9).fill('')]);
    // Without a peer label, a cell's peer figures are not shown.
    expect(rows(resultsTable([cell('non-stream', 32, { peer })]))).toHaveLength(2);
  });
});

describe('cpuByProcessTable', () => {
  it('has one row per cell: each process, their total, the direct mock and the busy shares', () => {
    const t = cpuByProcessTable([
      cell('non-stream', 32),
      cell('stream', 64, {
        cpuUsPerRequest: { edge: 1999.6, worker: 1 },
        directMockCpuUsPerRequest: Number.NaN,
      }),
    ]);
    expect(header(t).slice(2, 8)).toEqual([
      'edge µs',
      'worker µs',
      'redis µs',
      'postgres µs',
      'mock µs',
      'router µs',
    ]);
    expect(rows(t)).toEqual([
      ['non-stream', '32', '100', '50', '20', '30', '40', '10', '250', '35', '90.3 %', '40.0 %'],
      ['stream', '64', '2,000', '1', 'n/a', 'n/a', 'n/a', 'n/a', '2,001', 'n/a', '90.3 %', '40.0 %'],
    ]);
  });
});

describe('tailTable', () => {
  const runtime = {
    loopDelayP99Ms: 1.5,
    loopDelayP999Ms: 3,
    loopDelayMaxMs: 9.254,
    gcPausesPerSecond: 12.34,
    gcMsPerSecond: 4.56,
    gcYoungMsPerSecond: 3.21,
    gcOldMsPerSecond: 1.35,
    gcMaxMs: 6.789,
    gcOver5msPerSecond: 0.125,
    allocatedBytesPerRequest: Number.NaN,
    promotedBytesPerRequest: Number.NaN,
    requestTimes: null,
    memoryAtPeak: null,
  };

  it('has one row per cell with the edge runtime figures and the CPU waits', () => {
    const t = tailTable([cell('non-stream', 1, { edgeRuntime: runtime }), cell('stream', 32)]);
    expect(rows(t)).toEqual([
      [
        'non-stream',
        '1',
        '-0.05',
        '2.35',
        '1.50 / 3.00 / 9.25',
        '12.3',
        '4.6 (3.2 / 1.4)',
        '6.79',
        '0.13',
        '5 / 7 / 7',
        '3',
      ],
      ['stream', '32', '-0.05', '2.35', 'n/a', 'n/a', 'n/a', 'n/a', 'n/a', '5 / 7 / 7', '3'],
    ]);
  });

  it('says n/a for a wait or a p99 that was not read', () => {
    const [row] = rows(
      tailTable([
        cell('stream', 1, {
          addedP99Ms: Number.NaN,
          cpuWaitUsPerRequest: { direct: {}, gateway: { edge: 5, worker: Number.NaN } },
        }),
      ]),
    );
    expect(row![2]).toBe('n/a');
    expect(row!.slice(-2)).toEqual(['5 / n/a / n/a', 'n/a']);
  });
});

describe('insideTable', () => {
  it('shows what the client saw beside the held, upstream and own times, n/a where not read', () => {
    const q = (p50: number, p99: number, p999: number) => ({ p50, p99, p999 });
    const requestTimes = { held: q(0.5, 4.123, 9), upstream: q(0.25, 3, 8), own: q(0.2, 0.8, 1.5) };
    const runtime = edgeRuntimeSummary({ requestTimes });
    const t = insideTable([cell('non-stream', 1, { edgeRuntime: runtime }), cell('stream', 32)]);
    expect(rows(t)).toEqual([
      [
        'non-stream',
        '1',
        '1.20 / 2.50',
        '0.50 / 4.12 / 9.00',
        '0.25 / 3.00 / 8.00',
        '0.20 / 0.80 / 1.50',
        'n/a',
      ],
      ['stream', '32', '1.20 / 2.50', 'n/a', 'n/a', 'n/a', 'n/a'],
    ]);
  });
});

describe('ttftTable and scalingTable', () => {
  it('shows added TTFT at p50 and p99, with the peer when it streamed', () => {
    const ttft = {
      requests: 300,
      direct: { p50Ms: 5, p99Ms: 6 },
      gateway: { p50Ms: 5.25, p99Ms: 8 },
      peer: { p50Ms: 34, p99Ms: 40 },
    };
    expect(rows(ttftTable(ttft))).toEqual([
      ['p50', '5.00', '5.25', '+0.25'],
      ['p99', '6.00', '8.00', '+2.00'],
    ]);
    expect(rows(ttftTable(ttft, 'Portkey'))[0]).toEqual(['p50', '5.00', '5.25', '+0.25', '34.00', '+29.00']);
  });

  it('shows the speed-up over one process, n/a without that row', () => {
    const row = (processes: number, speedup: number | null): ScalingRow => ({
      processes,
      cpus: processes === 1 ? '0' : '0,1',
      concurrency: 64,
      directRps: 3000,
      gatewayRps: 2302.4,
      throughputRatio: 0.77,
      speedup,
      gatewayP50Ms: 20,
      gatewayP99Ms: 40,
      edgeCpuUsPerRequest: 357,
      edgeCorePct: 150,
      machineBusyPct: 99,
      edgePeakRssMb: 223,
      errors: 0,
    });
    const [one, two] = rows(scalingTable([row(1, null), row(2, 0.7)]));
    expect(one!.slice(0, 6)).toEqual(['1', '0', '64', '3,000', '2,302', 'n/a']);
    expect(two!.slice(5)).toEqual(['0.70x', '0.77', '20.00', '40.00', '357', '1.50', '99.0 %', '223', '0']);
  });
});

describe('sharesTable', () => {
  const shares = [
    { name: 'undici', pct: 16.5 },
    { name: 'ioredis', pct: 10 },
  ];

  it('lists each share of busy time, and its µs per request when the busy time per request is given', () => {
    expect(sharesTable('component', shares).split('\n')).toEqual([
      '| share of busy time | component |',
      '| --- | --- |',
      '| 16.5 % | `undici` |',
      '| 10.0 % | `ioredis` |',
    ]);
    expect(sharesTable('component', shares, 400).split('\n').slice(2)).toEqual([
      '| 16.5 % | 66.0 | `undici` |',
      '| 10.0 % | 40.0 | `ioredis` |',
    ]);
  });
});

describe('withRange', () => {
  const two = (n: number): string => n.toFixed(2);

  it("follows the median with the rounds' min–max when two or more rounds had the figure", () => {
    expect(withRange(1.5, [2, 1, 1.5], two)).toBe('1.50 (1.00–2.00)');
    expect(withRange(3, [3, 3], two)).toBe('3.00 (3.00–3.00)');
  });

  it('is the figure alone for one round, none, or only rounds without it', () => {
    expect(withRange(1.5, [1.5], two)).toBe('1.50');
    expect(withRange(1.5, [], two)).toBe('1.50');
    expect(withRange(1.5, [Number.NaN, 1.5], two)).toBe('1.50');
  });

  it('leaves a missing figure to its formatter, without a range', () => {
    expect(withRange(Number.NaN, [1, 2], (n) => (Number.isFinite(n) ? two(n) : 'n/a'))).toBe('n/a');
  });
});

describe('resultsTable with rounds', () => {
  it("gives every figure taken per round its min–max over the rounds, paired with that round's direct run", () => {
    const rounds = [
      {
        direct: runSample({ rps: 1000, p50Ms: 1, p99Ms: 2 }),
        gateway: runSample({ rps: 500, p50Ms: 1.5, p99Ms: 4, edgeCpuUsPerRequest: 90, edgeCorePct: 40 }),
      },
      {
        direct: runSample({ rps: 2000, p50Ms: 0.5, p99Ms: 3 }),
        gateway: runSample({ rps: 600, p50Ms: 1.5, p99Ms: 5, edgeCpuUsPerRequest: 110, edgeCorePct: 60 }),
      },
    ];
    const t = rows(
      resultsTable([
        cell('non-stream', 1, {
          pairs: rounds,
          direct: { rps: 1500, p50Ms: 0.75, p99Ms: 2.5 },
          gateway: { rps: 550, p50Ms: 1.5, p99Ms: 4.5 },
          throughputRatio: 0.4,
          addedP50Ms: 0.75,
          addedP99Ms: 2,
          edgeCpuUsPerRequest: 100,
          edgeCorePct: 50,
        }),
      ]),
    );
    expect(t[0]).toEqual([
      'non-stream',
      '1',
      'direct (mock)',
      '1,500 (1,000–2,000)',
      '',
      '0.75 (0.50–1.00)',
      '',
      '2.50 (2.00–3.00)',
      '',
      '',
      '',
      '',
      '',
    ]);
    // Ratios 0.5 and 0.3, added p50 0.5 and 1.0, added p99 2.0 and 2.0: each within its own round.
    expect(t[1]).toEqual([
      'non-stream',
      '1',
      'gateway',
      '550 (500–600)',
      '0.40 (0.30–0.50)',
      '1.50 (1.50–1.50)',
      '+0.75 (+0.50–+1.00)',
      '4.50 (4.00–5.00)',
      '+2.00 (+2.00–+2.00)',
      '100 (90–110)',
      '50.0 % (40.0 %–60.0 %)',
      '151',
      '3',
    ]);
  });

  it('ranges the peer over the rounds it ran in', () => {
    const peer = {
      rps: 300,
      p50Ms: 3,
      p99Ms: 9,
      addedP50Ms: 2,
      addedP99Ms: 7,
      throughputRatio: 0.3,
      cpuUsPerRequest: 1000,
      corePct: 99,
      peakRssMb: 200,
      errors: 0,
    };
    const pairs = [
      { direct: runSample({ rps: 1000 }), gateway: runSample(), peer: runSample({ rps: 200 }) },
      { direct: runSample({ rps: 1000 }), gateway: runSample(), peer: runSample({ rps: 400 }) },
    ];
    const [, , p] = rows(resultsTable([cell('non-stream', 32, { pairs, peer })], 'Portkey 1.15.2'));
    expect(p!.slice(2, 5)).toEqual(['Portkey 1.15.2', '300 (200–400)', '0.30 (0.20–0.40)']);
  });
});

describe('heapPerRequest', () => {
  it("divides the run's heap figures by its requests, NaN for a run the hook did not read", () => {
    const run = runSample(
      { requests: 2000 },
      {
        allocatedBytes: 102_400_000,
        promotedBytes: 4_096_000,
        youngCollections: 50,
        fullCollections: 1,
      },
    );
    expect(heapPerRequest(run)).toEqual({ allocated: 51_200, promoted: 2048, youngGcs: 0.025 });
    const blind = heapPerRequest(runSample());
    expect([blind.allocated, blind.promoted, blind.youngGcs].every(Number.isNaN)).toBe(true);
  });
});

describe('heapTable', () => {
  const heap = (
    allocatedBytes: number,
    promotedBytes: number,
    youngCollections: number,
    fullCollections: number,
  ) => ({
    allocatedBytes,
    promotedBytes,
    youngCollections,
    fullCollections,
  });

  it('shows KB allocated and promoted per request, young GCs per 1,000 requests and full GCs per run, each with its range', () => {
    const pairs = [
      { direct: runSample(), gateway: runSample({ requests: 1000 }, heap(40_960_000, 2_048_000, 10, 0)) },
      { direct: runSample(), gateway: runSample({ requests: 1000 }, heap(51_200_000, 3_072_000, 12, 2)) },
      { direct: runSample(), gateway: runSample({ requests: 2000 }, heap(92_160_000, 8_192_000, 30, 1)) },
    ];
    const edgeRuntime = {
      loopDelayP99Ms: 0,
      loopDelayP999Ms: 0,
      loopDelayMaxMs: 0,
      gcPausesPerSecond: 0,
      gcMsPerSecond: 0,
      gcYoungMsPerSecond: Number.NaN,
      gcOldMsPerSecond: Number.NaN,
      gcMaxMs: 0,
      gcOver5msPerSecond: 0,
      requestTimes: null,
      memoryAtPeak: null,
      allocatedBytesPerRequest: 46_080,
      promotedBytesPerRequest: 3072,
    };
    const t = heapTable([cell('non-stream', 1, { pairs, edgeRuntime }), cell('stream', 32)]);
    expect(header(t)).toEqual([
      'workload',
      'conc.',
      'allocated KB/req',
      'promoted KB/req',
      'young GCs per 1,000 req',
      'full GCs per run',
      'floor: allocated / promoted KB/req',
    ]);
    expect(rows(t)).toEqual([
      // Per request: 40, 50 and 45 KB allocated; 2, 3 and 4 KB promoted; 10, 12 and 15 young GCs per 1,000.
      ['non-stream', '1', '45.0 (40.0–50.0)', '3.0 (2.0–4.0)', '12.0 (10.0–15.0)', '1 (0–2)', 'n/a'],
      ['stream', '32', 'n/a', 'n/a', 'n/a', 'n/a', 'n/a'],
    ]);
  });

  it("shows the floor proxy's bytes per request where its hook counted them", () => {
    const runtime = edgeRuntimeSummary({ allocatedBytesPerRequest: 12_800, promotedBytesPerRequest: 512 });
    const floor = sideResult({ runtime });
    const [row] = rows(heapTable([cell('non-stream', 1, { floor })]));
    expect(row!.at(-1)).toBe('12.5 / 0.5');
  });
});
