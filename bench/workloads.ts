import { setTimeout as sleep } from 'node:timers/promises';
import { type LogQueueBacklog } from './data.js';
import { type ProcessGroup } from './processes.js';
import { cpuDelta, cpuSnapshot, machineCpuTicks, runQueueSnapshot, treeRssKb } from './proc-stats.js';
import {
  edgeRuntimeSince,
  type MemoryAtPeak,
  type RequestTimes,
  type RuntimeStats,
} from './runtime-stats.js';
import { everyEdgeProcess } from './stack.js';
import { type BenchSettings } from './settings.js';
import { perRequest } from './heap-accounting.js';
import { median } from './stats.js';
import { runWrk, type WrkResult } from './wrk.js';

export type Mode = 'non-stream' | 'stream';
/** The mock called directly, through our gateway, or through the peer gateway (Portkey). */
export type Target = 'direct' | 'gateway' | 'floor' | 'peer';

export interface Cell {
  readonly mode: Mode;
  readonly concurrency: number;
}

export interface RunSample extends WrkResult {
  /**
   * The gateway's CPU time over the counted run divided by requests completed: our edge's (all its
   * processes), or the peer's in peer runs (direct runs: the edge's idle floor).
   */
  readonly edgeCpuUsPerRequest: number;
  /** That CPU time as a share of one core (above 100 % with several edge processes). */
  readonly edgeCorePct: number;
  /** CPU µs per completed request of every process group measured (edge, worker, redis...). */
  readonly cpuUsPerRequest: Readonly<Record<string, number>>;
  /** All CPUs of the machine together: share not idle during the counted run. */
  readonly machineBusyPct: number;
  /**
   * µs per completed request that each process group's main threads were runnable but waiting
   * for a CPU another process (or another of their own threads) held.
   */
  readonly cpuWaitUsPerRequest: Readonly<Record<string, number>>;
  /** Gateway runs of a one-process edge: its event loop and GC pauses. */
  readonly edgeRuntime?: RuntimeStats;
}

/** The peer's (or the floor proxy's) figures in one cell, taken like the gateway's (medians over the rounds). */
export interface PeerCellResult {
  readonly rps: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly addedP50Ms: number;
  readonly addedP99Ms: number;
  readonly throughputRatio: number;
  readonly cpuUsPerRequest: number;
  readonly corePct: number;
  /** The floor proxy's runtime figures (it runs the same hook as the edge); absent for the peer. */
  readonly runtime?: EdgeRuntimeSummary | null;
  readonly peakRssMb: number;
  readonly errors: number;
}

export interface Round {
  readonly direct: RunSample;
  readonly gateway: RunSample;
  /** The floor proxy (floor-proxy.ts), in results of bench versions that ran it. */
  readonly floor?: RunSample;
  readonly peer?: RunSample;
}

export interface CellResult {
  readonly cell: Cell;
  readonly pairs: readonly Round[];
  readonly direct: { readonly rps: number; readonly p50Ms: number; readonly p99Ms: number };
  readonly gateway: { readonly rps: number; readonly p50Ms: number; readonly p99Ms: number };
  /** Gateway minus direct, per pair, then the median. */
  readonly addedP50Ms: number;
  readonly addedP99Ms: number;
  /** Gateway req/s over direct req/s, per pair, then the median. */
  readonly throughputRatio: number;
  readonly edgeCpuUsPerRequest: number;
  readonly edgeCorePct: number;
  /** Gateway runs: CPU µs per request by process group (medians). */
  readonly cpuUsPerRequest: Readonly<Record<string, number>>;
  /** Direct runs: the mock's CPU µs per request (median). */
  readonly directMockCpuUsPerRequest: number;
  /** Medians of the machine's busy share (all CPUs) over the direct and the gateway runs. */
  readonly machineBusyPct: { readonly direct: number; readonly gateway: number };
  /** The edge's VmHWM once the cell is done (all its processes): the peak since it started, so far. */
  readonly edgePeakRssMb: number;
  /** Errors of the direct and gateway runs (the peer's are in `peer`). */
  readonly errors: number;
  /** Medians of cpuWaitUsPerRequest over the direct and over the gateway runs. */
  readonly cpuWaitUsPerRequest: {
    readonly direct: Readonly<Record<string, number>>;
    readonly gateway: Readonly<Record<string, number>>;
  };
  /** Medians over the gateway runs of their edge's runtime figures; null when not read. */
  readonly edgeRuntime: EdgeRuntimeSummary | null;
  /** Null when no peer ran, or it was not measured in this mode (see the peer's streamError). */
  readonly peer: PeerCellResult | null;
  /** The floor proxy's figures; null when it did not run (absent in results of bench versions before it). */
  readonly floor?: PeerCellResult | null;
}

/** Where a cell's tail comes from: the medians of each figure over its gateway runs. */
export interface EdgeRuntimeSummary {
  readonly loopDelayP99Ms: number;
  readonly loopDelayP999Ms: number;
  readonly loopDelayMaxMs: number;
  readonly gcPausesPerSecond: number;
  readonly gcMsPerSecond: number;
  /**
   * That time by collector: young-generation scavenges, and the old generation's work (mark-compact
   * pauses and incremental-marking steps on the main thread); NaN in results without the split.
   */
  readonly gcYoungMsPerSecond: number;
  readonly gcOldMsPerSecond: number;
  readonly gcMaxMs: number;
  readonly gcOver5msPerSecond: number;
  /** V8 heap bytes the edge allocated, and promoted to its old generation, per completed request (NaN: not read). */
  readonly allocatedBytesPerRequest: number;
  readonly promotedBytesPerRequest: number;
  /** What the edge's memory was made of at the highest RSS any of the cell's runs saw. */
  readonly memoryAtPeak: MemoryAtPeak | null;
  /** Where a request's time went inside the edge (runtime-hook.ts); null in results without it. */
  readonly requestTimes: RequestTimesSummary | null;
}

/** Per figure of RequestTimes, the medians over the runs of its p50, p99 and p99.9, in ms. */
export type RequestTimesSummary = Record<
  keyof RequestTimes,
  { readonly p50: number; readonly p99: number; readonly p999: number }
>;

export interface WorkloadContext {
  readonly settings: BenchSettings;
  readonly group: ProcessGroup;
  readonly backlog: LogQueueBacklog;
  readonly clockTicks: number;
  readonly apiKey: string;
  readonly urls: {
    readonly direct: string;
    readonly gateway: string;
    readonly floor?: string;
    readonly peer?: string;
  };
  /** Extra request headers per target (the peer's routing headers). */
  readonly headers: Partial<Record<Target, Readonly<Record<string, string>>>>;
  /** Whether the peer is measured in cells of this mode. */
  readonly peerMeasures: (mode: Mode) => boolean;
  readonly bodyFiles: Record<Mode, string>;
  readonly edgePid: () => number;
  /** EDGE_PROCESSES of the running edge: each process keeps its own log buffer. */
  readonly edgeProcesses: () => number;
  /** Where the running edge's runtime hook writes (runtime-hook.ts); null when it has none. */
  readonly runtimeStatsFile: () => string | null;
  /** Where the floor proxy's runtime hook writes. */
  readonly floorRuntimeStatsFile: string;
  readonly peerPid: () => number | undefined;
  readonly floorPid: () => number | undefined;
  /** The processes whose CPU time is read around each counted run, by name; must include `edge`. */
  readonly cpuGroups: () => ReadonlyMap<string, readonly number[]>;
  readonly log: (line: string) => void;
}

const DRAIN_TIMEOUT_MS = 120_000;

/**
 * Waits until the edge has shipped its buffered logs and the worker has written them, so the
 * worker's batches (on the load CPU, with Postgres) do not eat into the next run.
 */
export async function waitForDrain(ctx: WorkloadContext): Promise<void> {
  const start = Date.now();
  for (;;) {
    const queued = (await ctx.backlog.counts()).pending;
    const health = await everyEdgeProcess(ctx.urls.gateway, ctx.edgeProcesses());
    const buffered = health.reduce((sum, h) => sum + h.logs.pending, 0);
    const pending = queued + buffered;
    if (pending === 0) return;
    if (Date.now() - start > DRAIN_TIMEOUT_MS)
      throw new Error(`the worker left ${pending} request logs unprocessed for ${DRAIN_TIMEOUT_MS / 1000} s`);
    await sleep(100);
  }
}

/** A process that exited in between is no longer there to stop or resume. */
function signalAll(pids: readonly number[], signal: 'SIGSTOP' | 'SIGCONT'): void {
  for (const pid of pids) {
    try {
      process.kill(pid, signal);
    } catch {
      // gone: nothing to do
    }
  }
}

/** Warm-up (not counted), then the counted run with the edge's CPU time read around it. */
export async function measuredRun(ctx: WorkloadContext, cell: Cell, target: Target): Promise<RunSample> {
  await waitForDrain(ctx);
  const url = ctx.urls[target];
  if (url === undefined) throw new Error(`no ${target} to measure`);
  const run = {
    url: `${url}/v1/chat/completions`,
    connections: cell.concurrency,
    bodyFile: ctx.bodyFiles[cell.mode],
    apiKey: ctx.apiKey,
    headers: ctx.headers[target] ?? {},
  };
  await runWrk(ctx.group, { ...run, seconds: ctx.settings.warmupSeconds });
  const groups = ctx.cpuGroups();
  const statsFile =
    target === 'gateway' ? ctx.runtimeStatsFile() : target === 'floor' ? ctx.floorRuntimeStatsFile : null;
  const hooked = target === 'floor' ? ctx.floorPid() : ctx.edgePid();
  const runtime = statsFile && hooked ? await edgeRuntimeSince(hooked, statsFile) : null;
  const before = cpuSnapshot(groups);
  const waitBefore = runQueueSnapshot(groups);
  const machineBefore = machineCpuTicks();
  const frozen = target === 'gateway' ? ctx.settings.freeze.flatMap((name) => groups.get(name) ?? []) : [];
  signalAll(frozen, 'SIGSTOP');
  const result = await runWrk(ctx.group, { ...run, seconds: ctx.settings.durationSeconds }).finally(() =>
    signalAll(frozen, 'SIGCONT'),
  );
  const machineAfter = machineCpuTicks();
  const used = cpuDelta(before, cpuSnapshot(groups));
  const waitAfter = runQueueSnapshot(groups);
  const edgeRuntime = runtime ? await runtime.stop() : undefined;
  ctx.group.assertAlive();
  const cpuUsPerRequest: Record<string, number> = {};
  for (const [name, ticks] of used) cpuUsPerRequest[name] = (ticks / ctx.clockTicks / result.requests) * 1e6;
  const proxy = target === 'gateway' || target === 'direct' ? 'edge' : target;
  const edgeSeconds = (used.get(proxy) ?? Number.NaN) / ctx.clockTicks;
  return {
    ...result,
    edgeCpuUsPerRequest: cpuUsPerRequest[proxy] ?? Number.NaN,
    edgeCorePct: (edgeSeconds / result.seconds) * 100,
    cpuUsPerRequest,
    machineBusyPct:
      ((machineAfter.busy - machineBefore.busy) / (machineAfter.total - machineBefore.total)) * 100,
    cpuWaitUsPerRequest: Object.fromEntries(
      [...waitAfter].map(([name, ns]) => [name, (ns - (waitBefore.get(name) ?? ns)) / 1e3 / result.requests]),
    ),
    ...(edgeRuntime ? { edgeRuntime } : {}),
  };
}

/** Per key, the median over the records that have it. */
function medians(records: ReadonlyArray<Readonly<Record<string, number>>>): Record<string, number> {
  const keys = [...new Set(records.flatMap((r) => Object.keys(r)))];
  return Object.fromEntries(keys.map((k) => [k, median(records.flatMap((r) => (k in r ? [r[k]!] : [])))]));
}

/** The runtime hook's GC kinds (runtime-hook.ts), by generation. */
const YOUNG_GC = ['scavenge'];
const OLD_GC = ['mark-compact', 'incremental-marking'];

/** Pause time of these kinds; NaN when the hook recorded no split by kind. */
function gcMsOf(byKind: RuntimeStats['gc']['byKind'] | undefined, kinds: readonly string[]): number {
  if (byKind === undefined) return Number.NaN;
  return kinds.reduce((sum, k) => sum + (byKind[k]?.totalMs ?? 0), 0);
}

/** The runtime figures of one target's runs (the gateway's edge, or the floor proxy). */
export function runtimeSummary(
  rounds: readonly Round[],
  target: 'gateway' | 'floor' = 'gateway',
): EdgeRuntimeSummary | null {
  const runs = rounds.flatMap((r) => {
    const run = r[target];
    return run?.edgeRuntime ? [{ ...run.edgeRuntime, s: run.seconds, requests: run.requests }] : [];
  });
  if (runs.length === 0) return null;
  const m = (f: (r: (typeof runs)[number]) => number): number => median(runs.map(f));
  return {
    loopDelayP99Ms: m((r) => r.loopDelay.p99),
    loopDelayP999Ms: m((r) => r.loopDelay.p999),
    loopDelayMaxMs: m((r) => r.loopDelay.max),
    gcPausesPerSecond: m((r) => r.gc.count / r.s),
    gcMsPerSecond: m((r) => r.gc.totalMs / r.s),
    gcYoungMsPerSecond: m((r) => gcMsOf(r.gc.byKind, YOUNG_GC) / r.s),
    gcOldMsPerSecond: m((r) => gcMsOf(r.gc.byKind, OLD_GC) / r.s),
    gcMaxMs: m((r) => r.gc.maxMs),
    gcOver5msPerSecond: m((r) => r.gc.over5ms / r.s),
    allocatedBytesPerRequest: m((r) => perRequest(r.heap?.allocatedBytes, r.requests)),
    promotedBytesPerRequest: m((r) => perRequest(r.heap?.promotedBytes, r.requests)),
    memoryAtPeak: runs
      .map((r) => r.memory ?? null)
      .reduce<MemoryAtPeak | null>((a, b) => (b !== null && (a === null || b.rss > a.rss) ? b : a), null),
    requestTimes: requestTimesSummary(runs.flatMap((r) => (r.times ? [r.times] : []))),
  };
}

function requestTimesSummary(runs: readonly RequestTimes[]): RequestTimesSummary | null {
  if (runs.length === 0) return null;
  const of = (k: keyof RequestTimes): RequestTimesSummary[typeof k] => ({
    p50: median(runs.map((r) => r[k].p50)),
    p99: median(runs.map((r) => r[k].p99)),
    p999: median(runs.map((r) => r[k].p999)),
  });
  return { held: of('held'), upstream: of('upstream'), own: of('own') };
}

/**
 * The order of the targets' runs in round `round` (from 0): each round starts one further along, so
 * over as many rounds as there are targets each runs first, second... once, and a drift of the
 * machine over a cell (a neighbour's job starting, the log queue filling) does not always fall on
 * the same target: direct, gateway; gateway, direct; ... or direct, gateway, peer; gateway, peer,
 * direct; peer, direct, gateway.
 */
export function roundOrder<T>(targets: readonly T[], round: number): T[] {
  const shift = targets.length === 0 ? 0 : round % targets.length;
  return [...targets.slice(shift), ...targets.slice(0, shift)];
}

/** Rounds of runs, each target once per round in roundOrder, summarised by medians of values taken within each round. */
export async function runCell(ctx: WorkloadContext, cell: Cell): Promise<CellResult> {
  const pairs: Round[] = [];
  const withPeer = ctx.urls.peer !== undefined && ctx.peerMeasures(cell.mode);
  const withFloor = ctx.urls.floor !== undefined;
  const targets: readonly Target[] = [
    'direct',
    'gateway',
    ...(withFloor ? (['floor'] as const) : []),
    ...(withPeer ? (['peer'] as const) : []),
  ];
  for (let i = 0; i < ctx.settings.pairs; i++) {
    const runs: Partial<Record<Target, RunSample>> = {};
    for (const target of roundOrder(targets, i)) runs[target] = await measuredRun(ctx, cell, target);
    const { direct, gateway, floor, peer } = runs as Round;
    pairs.push({ direct, gateway, ...(floor ? { floor } : {}), ...(peer ? { peer } : {}) });
    ctx.log(
      `  ${cell.mode} c=${cell.concurrency} round ${i + 1}/${ctx.settings.pairs}: ` +
        `direct ${direct.rps.toFixed(0)} req/s p50 ${direct.p50Ms.toFixed(2)} ms | ` +
        `gateway ${gateway.rps.toFixed(0)} req/s p50 ${gateway.p50Ms.toFixed(2)} ms, ` +
        `${gateway.edgeCpuUsPerRequest.toFixed(0)} CPU µs/req` +
        (floor ? ` | floor ${floor.rps.toFixed(0)} req/s p50 ${floor.p50Ms.toFixed(2)} ms` : '') +
        (peer
          ? ` | peer ${peer.rps.toFixed(0)} req/s p50 ${peer.p50Ms.toFixed(2)} ms, ` +
            `${peer.edgeCpuUsPerRequest.toFixed(0)} CPU µs/req, ${peer.errors} errors`
          : ''),
    );
  }
  const m = (f: (p: Round) => number): number => median(pairs.map(f));
  return {
    cell,
    pairs,
    direct: { rps: m((p) => p.direct.rps), p50Ms: m((p) => p.direct.p50Ms), p99Ms: m((p) => p.direct.p99Ms) },
    gateway: {
      rps: m((p) => p.gateway.rps),
      p50Ms: m((p) => p.gateway.p50Ms),
      p99Ms: m((p) => p.gateway.p99Ms),
    },
    addedP50Ms: m((p) => p.gateway.p50Ms - p.direct.p50Ms),
    addedP99Ms: m((p) => p.gateway.p99Ms - p.direct.p99Ms),
    throughputRatio: m((p) => p.gateway.rps / p.direct.rps),
    edgeCpuUsPerRequest: m((p) => p.gateway.edgeCpuUsPerRequest),
    edgeCorePct: m((p) => p.gateway.edgeCorePct),
    cpuUsPerRequest: Object.fromEntries(
      Object.keys(pairs[0]?.gateway.cpuUsPerRequest ?? {})
        .filter((k) => k !== 'peer' && k !== 'floor')
        .map((k) => [k, m((p) => p.gateway.cpuUsPerRequest[k] ?? 0)]),
    ),
    directMockCpuUsPerRequest: m((p) => p.direct.cpuUsPerRequest.mock ?? Number.NaN),
    machineBusyPct: {
      direct: m((p) => p.direct.machineBusyPct),
      gateway: m((p) => p.gateway.machineBusyPct),
    },
    edgePeakRssMb: treeRssKb(ctx.edgePid(), 'VmHWM') / 1024,
    errors: pairs.reduce((sum, p) => sum + p.direct.errors + p.gateway.errors, 0),
    cpuWaitUsPerRequest: {
      direct: medians(pairs.map((p) => p.direct.cpuWaitUsPerRequest)),
      gateway: medians(pairs.map((p) => p.gateway.cpuWaitUsPerRequest)),
    },
    edgeRuntime: runtimeSummary(pairs),
    peer: withPeer ? sideResult(pairs, 'peer', ctx.peerPid()) : null,
    floor: withFloor ? sideResult(pairs, 'floor', ctx.floorPid()) : null,
  };
}

/** The figures of the peer or the floor proxy over the rounds, against the direct run of each. */
function sideResult(
  rounds: readonly Round[],
  side: 'peer' | 'floor',
  pid: number | undefined,
): PeerCellResult {
  const m = (f: (run: RunSample, direct: RunSample) => number): number =>
    median(rounds.map((r) => f(r[side]!, r.direct)));
  return {
    rps: m((p) => p.rps),
    p50Ms: m((p) => p.p50Ms),
    p99Ms: m((p) => p.p99Ms),
    addedP50Ms: m((p, d) => p.p50Ms - d.p50Ms),
    addedP99Ms: m((p, d) => p.p99Ms - d.p99Ms),
    throughputRatio: m((p, d) => p.rps / d.rps),
    cpuUsPerRequest: m((p) => p.edgeCpuUsPerRequest),
    corePct: m((p) => p.edgeCorePct),
    peakRssMb: pid ? treeRssKb(pid, 'VmHWM') / 1024 : Number.NaN,
    errors: rounds.reduce((sum, r) => sum + (r[side]?.errors ?? 0), 0),
    ...(side === 'floor' ? { runtime: runtimeSummary(rounds, 'floor') } : {}),
  };
}
