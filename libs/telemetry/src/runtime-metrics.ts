import {
  constants,
  monitorEventLoopDelay,
  type PerformanceEntry,
  PerformanceObserver,
} from 'node:perf_hooks';
import { getHeapStatistics } from 'node:v8';
import { ATTR } from './instruments.js';
import { type GatewayMetrics } from './metrics.js';

/** How often the loop is sampled: fine enough for millisecond stalls, one timer wake-up per 10 ms. */
const RESOLUTION_MS = 10;
/** The gauges show the last window of this length, so a scrape at any interval sees recent stalls. */
export const LOOP_WINDOW_MS = 10_000;

const GC_TYPES: Record<number, string> = {
  [constants.NODE_PERFORMANCE_GC_MINOR]: 'minor',
  [constants.NODE_PERFORMANCE_GC_MAJOR]: 'major',
  [constants.NODE_PERFORMANCE_GC_INCREMENTAL]: 'incremental',
  [constants.NODE_PERFORMANCE_GC_WEAKCB]: 'weakcb',
};

/**
 * Where a process's latency tail comes from, on `/metrics` like the rest: event-loop delay (p99
 * and max over the last window, OTel's `nodejs.eventloop.delay.*`) and every GC pause by type
 * (`v8js.gc.duration`). A stall of any cause (a GC pause, a long synchronous step, the process not
 * scheduled) shows in the delay; the GC histogram says how much of it was the collector. The
 * benchmark found pauses of 5-25 ms several times a second (docs/benchmarks.md). Also the process's
 * uptime and V8 heap (used, limit), read at collection, for the restart and heap alerts.
 * Returns the stop.
 */
export function startRuntimeMetrics(metrics: GatewayMetrics, windowMs = LOOP_WINDOW_MS): () => void {
  if (!metrics.enabled) return () => undefined;
  const loop = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
  loop.enable();
  // The histogram holds each whole sampling interval: the delay is what exceeds the resolution.
  const delaySeconds = (ns: number): number => Math.max(0, ns / 1e6 - RESOLUTION_MS) / 1e3;
  let last = { p99: 0, max: 0 };
  const window = setInterval(() => {
    last = loop.count > 0 ? { p99: delaySeconds(loop.percentile(99)), max: delaySeconds(loop.max) } : last;
    loop.reset();
  }, windowMs);
  window.unref();
  const stops = [
    metrics.observe('eventLoopDelayP99', (observe) => observe(last.p99)),
    metrics.observe('eventLoopDelayMax', (observe) => observe(last.max)),
    // Restarts and memory for the alerts (deploy/prometheus/alerts.yml), read at collection only.
    metrics.observe('processUptime', (observe) => observe(process.uptime())),
    metrics.observe('heapUsed', (observe) => observe(getHeapStatistics().used_heap_size)),
    metrics.observe('heapLimit', (observe) => observe(getHeapStatistics().heap_size_limit)),
  ];

  const gc = metrics.histogram('gcDuration');
  const byType = new Map(Object.values(GC_TYPES).map((type) => [type, gc.bind({ [ATTR.gcType]: type })]));
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      const { detail } = entry as PerformanceEntry & { detail?: { kind?: number } };
      byType.get(GC_TYPES[detail?.kind ?? -1] ?? '')?.record(entry.duration / 1e3);
    }
  });
  observer.observe({ entryTypes: ['gc'] });

  return () => {
    observer.disconnect();
    clearInterval(window);
    loop.disable();
    for (const stop of stops) stop();
  };
}
