/** Builders of bench results for the bench's own tests: every figure set, each test overriding its own. */
import { type BenchReport } from './report.js';
import { readSettings } from './settings.js';
import { type RuntimeStats } from './runtime-stats.js';
import {
  type CellResult,
  type EdgeRuntimeSummary,
  type Mode,
  type PeerCellResult,
  type RunSample,
} from './workloads.js';

/** A cell's runtime figures with nothing read (zeros, NaN bytes, no times); `over` sets what a test is about. */
export const edgeRuntimeSummary = (over: Partial<EdgeRuntimeSummary> = {}): EdgeRuntimeSummary => ({
  loopDelayP99Ms: 0,
  loopDelayP999Ms: 0,
  loopDelayMaxMs: 0,
  gcPausesPerSecond: 0,
  gcMsPerSecond: 0,
  gcYoungMsPerSecond: 0,
  gcOldMsPerSecond: 0,
  gcMaxMs: 0,
  gcOver5msPerSecond: 0,
  allocatedBytesPerRequest: Number.NaN,
  promotedBytesPerRequest: Number.NaN,
  requestTimes: null,
  memoryAtPeak: null,
  ...over,
});

/** The peer's or the floor proxy's figures in one cell; `over` sets what a test is about. */
export const sideResult = (over: Partial<PeerCellResult> = {}): PeerCellResult => ({
  rps: 1,
  p50Ms: 1,
  p99Ms: 1,
  addedP50Ms: 0,
  addedP99Ms: 0,
  throughputRatio: 1,
  cpuUsPerRequest: 1,
  corePct: 1,
  peakRssMb: 1,
  errors: 0,
  ...over,
});

/** One counted run: 1,000 requests in 10 s; `heap` gives it the runtime hook's heap figures. */
export const runSample = (
  over: Partial<RunSample> = {},
  heap?: NonNullable<RuntimeStats['heap']>,
): RunSample => ({
  requests: 1000,
  seconds: 10,
  rps: 100,
  p50Ms: 1,
  p99Ms: 2,
  errors: 0,
  edgeCpuUsPerRequest: 100,
  edgeCorePct: 10,
  cpuUsPerRequest: {},
  machineBusyPct: 50,
  cpuWaitUsPerRequest: {},
  ...(heap
    ? {
        edgeRuntime: {
          loopDelay: { p50: 0, p99: 0, p999: 0, max: 0, samples: 0 },
          gc: { count: 0, totalMs: 0, maxMs: 0, over5ms: 0, byKind: {} },
          memory: null,
          heap,
        },
      }
    : {}),
  ...over,
});

/** A cell whose figures meet every target; `over` replaces what a test is about. */
export const cellResult = (mode: Mode, concurrency: number, over: Partial<CellResult> = {}): CellResult => ({
  cell: { mode, concurrency },
  pairs: [],
  direct: { rps: 1000, p50Ms: 1, p99Ms: 2 },
  gateway: { rps: 900, p50Ms: 1.2, p99Ms: 2.5 },
  addedP50Ms: 0.2,
  addedP99Ms: 0.5,
  throughputRatio: 0.9,
  edgeCpuUsPerRequest: 100,
  edgeCorePct: 50,
  cpuUsPerRequest: { edge: 100, worker: 50, router: 10, redis: 20, postgres: 20, mock: 400 },
  directMockCpuUsPerRequest: 35,
  machineBusyPct: { direct: 40, gateway: 90 },
  edgePeakRssMb: 150,
  errors: 0,
  cpuWaitUsPerRequest: { direct: {}, gateway: {} },
  edgeRuntime: null,
  peer: null,
  ...over,
});

/** A run of `cells` that meets every target, without peer, scaling or profile. */
export const benchReport = (cells: CellResult[], over: Partial<BenchReport> = {}): BenchReport => ({
  date: new Date('2025-01-01T00:00:00Z'),
  minutes: 10,
  machine: { nproc: 2, cpuModel: 'test CPU', node: 'v22.0.0', kernel: '6.1', wrk: '4.2.0' },
  settings: readSettings({}, []),
  mockBehaviour: {},
  cells,
  ttft: { requests: 300, direct: { p50Ms: 5, p99Ms: 6 }, gateway: { p50Ms: 5.3, p99Ms: 7 } },
  edgePeakRssMb: 150,
  edgeBootRssMb: 100,
  logCheck: { shipped: 0, rows: 0, failed: 0 },
  profile: null,
  peer: { status: 'off' },
  scaling: null,
  ...over,
});
