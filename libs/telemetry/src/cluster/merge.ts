import { type Attributes, type HrTime } from '@opentelemetry/api';
import {
  type DataPoint,
  DataPointType,
  type Histogram,
  type MetricData,
  type ScopeMetrics,
} from '@opentelemetry/sdk-metrics';
import { type MetricsSnapshot } from './snapshot.js';

/** Attribute the merge adds to a point it cannot add up (a gauge): which process it is from. */
export const PROCESS_PID = 'process.pid';

/** One worker's collection, with its pid for the points that stay per process. */
export interface WorkerSnapshot {
  readonly pid: number;
  readonly snapshot: MetricsSnapshot;
}

type Point = DataPoint<unknown>;

interface MetricAcc {
  readonly metric: MetricData;
  readonly points: Map<string, Point>;
}

const attributesKey = (a: Attributes): string =>
  JSON.stringify(
    Object.keys(a)
      .sort()
      .map((k) => [k, a[k]]),
  );

const earlier = (a: HrTime, b: HrTime): HrTime => (a[0] < b[0] || (a[0] === b[0] && a[1] <= b[1]) ? a : b);
const later = (a: HrTime, b: HrTime): HrTime => (earlier(a, b) === a ? b : a);
const sameBoundaries = (a: Histogram, b: Histogram): boolean =>
  a.buckets.boundaries.length === b.buckets.boundaries.length &&
  a.buckets.boundaries.every((x, i) => x === b.buckets.boundaries[i]);

function addHistograms(a: Histogram, b: Histogram): Histogram {
  const min = Math.min(a.min ?? Infinity, b.min ?? Infinity);
  const max = Math.max(a.max ?? -Infinity, b.max ?? -Infinity);
  return {
    buckets: {
      boundaries: a.buckets.boundaries,
      counts: a.buckets.counts.map((c, i) => c + (b.buckets.counts[i] ?? 0)),
    },
    count: a.count + b.count,
    ...(a.sum !== undefined && b.sum !== undefined ? { sum: a.sum + b.sum } : {}),
    ...(Number.isFinite(min) ? { min } : {}),
    ...(Number.isFinite(max) ? { max } : {}),
  };
}

/**
 * The sum of two points of one series, or null when they cannot be added: cumulative sums
 * (counters) and explicit-bucket histograms with the same buckets add up; gauges, exponential
 * histograms and delta data do not (a last value of one process plus another's means nothing).
 */
function addPoints(metric: MetricData, a: Point, b: Point): Point | null {
  const times = { startTime: earlier(a.startTime, b.startTime), endTime: later(a.endTime, b.endTime) };
  if (metric.dataPointType === DataPointType.SUM)
    return { ...a, ...times, value: (a.value as number) + (b.value as number) };
  if (metric.dataPointType === DataPointType.HISTOGRAM) {
    const [x, y] = [a.value as Histogram, b.value as Histogram];
    return sameBoundaries(x, y) ? { ...a, ...times, value: addHistograms(x, y) } : null;
  }
  return null;
}

/** Sums and histograms add up; anything else is kept per process, labelled with its pid. */
export function summable(metric: MetricData): boolean {
  return metric.dataPointType === DataPointType.SUM || metric.dataPointType === DataPointType.HISTOGRAM;
}

/**
 * Adds the workers' metrics up into one set, as if one process had served every request: same
 * series (metric and attributes) are summed, and the points that cannot be are kept apart with a
 * `process.pid` attribute. Pure: the primary calls it on every scrape.
 */
export function mergeSnapshots(parts: readonly WorkerSnapshot[], resource: Attributes): MetricsSnapshot {
  const scopes = new Map<string, { scope: ScopeMetrics['scope']; metrics: Map<string, MetricAcc> }>();
  for (const { pid, snapshot } of parts) {
    for (const sm of snapshot.scopeMetrics) {
      let scope = scopes.get(sm.scope.name);
      if (!scope) scopes.set(sm.scope.name, (scope = { scope: sm.scope, metrics: new Map() }));
      for (const metric of sm.metrics) {
        let acc = scope.metrics.get(metric.descriptor.name);
        if (!acc) scope.metrics.set(metric.descriptor.name, (acc = { metric, points: new Map() }));
        for (const point of metric.dataPoints as Point[]) addPoint(acc, point, pid);
      }
    }
  }
  return {
    resource,
    scopeMetrics: [...scopes.values()].map(({ scope, metrics }) => ({
      scope,
      metrics: [...metrics.values()].map(
        ({ metric, points }) => ({ ...metric, dataPoints: [...points.values()] }) as MetricData,
      ),
    })),
  };
}

function addPoint(acc: MetricAcc, point: Point, pid: number): void {
  // Not addable at all (a gauge): every process's point is a series of its own, whatever the count.
  const own = summable(acc.metric) ? point : withPid(point, pid);
  const key = attributesKey(own.attributes);
  const known = acc.points.get(key);
  if (!known) return void acc.points.set(key, own);
  const sum = addPoints(acc.metric, known, own);
  if (sum) acc.points.set(key, sum);
  // Same series, buckets that differ (two versions during a change): kept apart, by pid.
  else acc.points.set(attributesKey(withPid(point, pid).attributes), withPid(point, pid));
}

const withPid = (point: Point, pid: number): Point => ({
  ...point,
  attributes: { ...point.attributes, [PROCESS_PID]: pid },
});

/** The part of a snapshot that adds up: what a dead worker leaves to the pod's totals. */
export function summablePart(s: MetricsSnapshot): MetricsSnapshot {
  return {
    resource: s.resource,
    scopeMetrics: s.scopeMetrics.map((sm) => ({ ...sm, metrics: sm.metrics.filter(summable) })),
  };
}
