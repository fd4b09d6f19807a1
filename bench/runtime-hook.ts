/**
 * Preloaded into the bench's edge (`node --import`) to show where its latency tail comes from:
 * event-loop delay (`monitorEventLoopDelay`), V8 garbage-collection pauses, and the bytes the heap
 * allocated and promoted (heap-accounting.ts, from `v8.GCProfiler`). Each SIGUSR2
 * writes what was seen since the previous one to BENCH_RUNTIME_STATS and starts over, so the bench
 * brackets a counted run with two signals and reads the second file. The profile hook uses the
 * same signal: the two are never loaded together.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { subscribe } from 'node:diagnostics_channel';
import { renameSync, writeFileSync } from 'node:fs';
import { GCProfiler, getHeapSpaceStatistics } from 'node:v8';
import { gcRecords, type GcProfile, heapTraffic, type HeapTraffic, heapUseNow } from './heap-accounting.js';
import {
  constants,
  createHistogram,
  monitorEventLoopDelay,
  type PerformanceEntry,
  PerformanceObserver,
} from 'node:perf_hooks';

/** A sampling timer every RESOLUTION_MS: fine enough for millisecond stalls, cheap enough not to move CPU figures. */
const RESOLUTION_MS = 5;
/** How often the memory is read: process.memoryUsage() costs tens of µs, so not per loop turn. */
const MEMORY_EVERY_MS = 100;

/** What the edge's memory was made of when its RSS was highest in the interval, in MB. */
export interface MemoryAtPeak {
  readonly rss: number;
  /** V8's heap by space: the young generation (new_space), the old one, large objects, code. */
  readonly newSpace: number;
  readonly oldSpace: number;
  readonly largeObjects: number;
  readonly otherSpaces: number;
  /** Outside V8's heap: Buffers and ArrayBuffers (sockets, bodies), then the rest of `external`. */
  readonly arrayBuffers: number;
  readonly external: number;
}

export interface RuntimeStats {
  /** Event-loop delay in ms: how late a timer due every RESOLUTION_MS ran. */
  readonly loopDelay: { p50: number; p99: number; p999: number; max: number; samples: number };
  readonly gc: {
    readonly count: number;
    readonly totalMs: number;
    readonly maxMs: number;
    /** Pauses longer than 5 ms (the ones that can show in a p99 of one connection). */
    readonly over5ms: number;
    readonly byKind: Record<string, { count: number; totalMs: number; maxMs: number }>;
  };
  readonly memory: MemoryAtPeak | null;
  /** Bytes allocated and promoted over the interval; absent in results of bench versions before it. */
  readonly heap?: HeapTraffic;
  /** Per served request, in ms (requestTimes below); absent in results of bench versions before it. */
  readonly times?: RequestTimes;
}

export interface Percentiles {
  readonly p50: number;
  readonly p99: number;
  readonly p999: number;
  readonly max: number;
  readonly count: number;
}

/** Where a served request's time went inside the edge. */
export interface RequestTimes {
  /**
   * From Node's HTTP server handing the request over (its headers parsed) to the last byte of the
   * answer handed to the kernel. What a client measures beyond this is outside the edge: the
   * network stack, the client itself, and the edge's loop busy when the request arrived.
   */
  readonly held: Percentiles;
  /** Each upstream call, from undici creating it to the end of its body (a stream's last chunk). */
  readonly upstream: Percentiles;
  /** Held minus the upstream calls inside it: the edge's own time, the part a faster provider cannot shorten. */
  readonly own: Percentiles;
}

const MB = 1024 * 1024;

function memoryNow(): MemoryAtPeak {
  const usage = process.memoryUsage();
  const space: Record<string, number> = {};
  for (const s of getHeapSpaceStatistics()) space[s.space_name] = s.physical_space_size / MB;
  const sum = Object.values(space).reduce((a, b) => a + b, 0);
  const newSpace = (space.new_space ?? 0) + (space.new_large_object_space ?? 0);
  const oldSpace = space.old_space ?? 0;
  const largeObjects = space.large_object_space ?? 0;
  return {
    rss: usage.rss / MB,
    newSpace,
    oldSpace,
    largeObjects,
    otherSpaces: sum - newSpace - oldSpace - largeObjects,
    arrayBuffers: usage.arrayBuffers / MB,
    external: (usage.external - usage.arrayBuffers) / MB,
  };
}

const KINDS: Record<number, string> = {
  [constants.NODE_PERFORMANCE_GC_MINOR]: 'scavenge',
  [constants.NODE_PERFORMANCE_GC_MAJOR]: 'mark-compact',
  [constants.NODE_PERFORMANCE_GC_INCREMENTAL]: 'incremental-marking',
  [constants.NODE_PERFORMANCE_GC_WEAKCB]: 'weak-callbacks',
};

type Histogram = ReturnType<typeof createHistogram>;

function percentiles(h: Histogram): Percentiles {
  const ms = (ns: number): number => ns / 1e6;
  return {
    p50: ms(h.percentile(50)),
    p99: ms(h.percentile(99)),
    p999: ms(h.percentile(99.9)),
    max: ms(h.max),
    count: h.count,
  };
}

/** A served request's clock: when it was handed over, and the upstream time inside it so far. */
interface Served {
  readonly startNs: bigint;
  upstreamNs: bigint;
}

/**
 * Times each request from Node's and undici's diagnostics channels (published only while someone
 * listens). The served request is carried to its upstream calls in an AsyncLocalStorage entered
 * when the server hands it over: the handler and every promise it starts run in that context.
 */
function requestTimes(): { read: () => RequestTimes; reset: () => void } {
  const held = createHistogram();
  const upstream = createHistogram();
  const own = createHistogram();
  const context = new AsyncLocalStorage<Served>();
  const served = new WeakMap<object, Served>();
  const calls = new WeakMap<object, { served: Served; startNs: bigint }>();
  const record = (h: Histogram, ns: bigint): void => h.record(ns > 0n ? ns : 1n);
  subscribe('http.server.request.start', (message) => {
    const state: Served = { startNs: process.hrtime.bigint(), upstreamNs: 0n };
    served.set((message as { response: object }).response, state);
    context.enterWith(state);
  });
  subscribe('http.server.response.finish', (message) => {
    const state = served.get((message as { response: object }).response);
    if (state === undefined) return;
    const ns = process.hrtime.bigint() - state.startNs;
    record(held, ns);
    record(own, ns - state.upstreamNs);
  });
  subscribe('undici:request:create', (message) => {
    const state = context.getStore();
    if (state)
      calls.set((message as { request: object }).request, {
        served: state,
        startNs: process.hrtime.bigint(),
      });
  });
  const ended = (message: unknown): void => {
    const request = (message as { request: object }).request;
    const call = calls.get(request);
    if (call === undefined) return;
    calls.delete(request);
    const ns = process.hrtime.bigint() - call.startNs;
    call.served.upstreamNs += ns;
    record(upstream, ns);
  };
  subscribe('undici:request:trailers', ended);
  subscribe('undici:request:error', ended);
  return {
    read: () => ({ held: percentiles(held), upstream: percentiles(upstream), own: percentiles(own) }),
    reset: () => {
      held.reset();
      upstream.reset();
      own.reset();
    },
  };
}

const out = process.env.BENCH_RUNTIME_STATS;
if (out) {
  const times = requestTimes();
  const loop = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
  loop.enable();
  let pauses: Array<{ kind: string; ms: number }> = [];
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      const { detail } = e as PerformanceEntry & { detail?: { kind?: number } };
      const kind = KINDS[detail?.kind ?? -1] ?? 'other';
      pauses.push({ kind, ms: e.duration });
    }
  }).observe({ entryTypes: ['gc'] });
  let peak: MemoryAtPeak | null = null;
  // A profiler per interval: stop() hands over every collection since start(), with the heap before
  // and after each. It records only at collections (a few a second), not per allocation.
  let gcProfiler = new GCProfiler();
  let heapAtStart = heapUseNow(getHeapSpaceStatistics());
  gcProfiler.start();
  setInterval(() => {
    const now = memoryNow();
    if (peak === null || now.rss > peak.rss) peak = now;
  }, MEMORY_EVERY_MS).unref();

  process.on('SIGUSR2', () => {
    const heapAtEnd = heapUseNow(getHeapSpaceStatistics());
    const gcs = gcProfiler.stop() as GcProfile | undefined;
    const heap = heapTraffic(heapAtStart, heapAtEnd, gcs ? gcRecords(gcs) : []);
    // The histogram holds the whole interval between two samples, the resolution included.
    const ms = (ns: number): number => Math.max(0, ns / 1e6 - RESOLUTION_MS);
    const byKind: RuntimeStats['gc']['byKind'] = {};
    for (const p of pauses) {
      const k = (byKind[p.kind] ??= { count: 0, totalMs: 0, maxMs: 0 });
      k.count++;
      k.totalMs += p.ms;
      k.maxMs = Math.max(k.maxMs, p.ms);
    }
    const stats: RuntimeStats = {
      loopDelay: {
        p50: ms(loop.percentile(50)),
        p99: ms(loop.percentile(99)),
        p999: ms(loop.percentile(99.9)),
        max: ms(loop.max),
        samples: loop.count,
      },
      gc: {
        count: pauses.length,
        totalMs: pauses.reduce((s, p) => s + p.ms, 0),
        maxMs: pauses.reduce((m, p) => Math.max(m, p.ms), 0),
        over5ms: pauses.filter((p) => p.ms > 5).length,
        byKind,
      },
      memory: peak,
      heap,
      times: times.read(),
    };
    loop.reset();
    times.reset();
    pauses = [];
    peak = null;
    gcProfiler = new GCProfiler();
    heapAtStart = heapUseNow(getHeapSpaceStatistics());
    gcProfiler.start();
    // Written aside, then renamed: the bench polls for the file and must never read half of it.
    writeFileSync(`${out}.partial`, JSON.stringify(stats));
    renameSync(`${out}.partial`, out);
  });
}
