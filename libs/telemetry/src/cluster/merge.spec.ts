import { describe, expect, it } from '@jest/globals';
import { type HrTime, ValueType } from '@opentelemetry/api';
import { AggregationTemporality, DataPointType, type MetricData } from '@opentelemetry/sdk-metrics';
import { mergeSnapshots, summablePart } from './merge.js';
import { type MetricsSnapshot, snapshotText } from './snapshot.js';

const t = (s: number): HrTime => [s, 0];
const descriptor = (name: string) => ({ name, description: name, unit: '', valueType: ValueType.DOUBLE });

function counter(value: number, route = '/v1/chat'): MetricData {
  return {
    descriptor: descriptor('requests'),
    dataPointType: DataPointType.SUM,
    aggregationTemporality: AggregationTemporality.CUMULATIVE,
    isMonotonic: true,
    dataPoints: [{ startTime: t(10), endTime: t(20), attributes: { route }, value }],
  };
}

function histogram(counts: number[], sum: number, min: number, max: number, boundaries = [1, 2]): MetricData {
  return {
    descriptor: descriptor('duration'),
    dataPointType: DataPointType.HISTOGRAM,
    aggregationTemporality: AggregationTemporality.CUMULATIVE,
    dataPoints: [
      {
        startTime: t(10),
        endTime: t(20),
        attributes: {},
        value: { buckets: { boundaries, counts }, sum, count: counts.reduce((a, b) => a + b), min, max },
      },
    ],
  };
}

function gauge(value: number): MetricData {
  return {
    descriptor: descriptor('depth'),
    dataPointType: DataPointType.GAUGE,
    aggregationTemporality: AggregationTemporality.CUMULATIVE,
    dataPoints: [{ startTime: t(10), endTime: t(20), attributes: { queue: 'logs' }, value }],
  };
}

const snap = (...metrics: MetricData[]): MetricsSnapshot => ({
  resource: { 'service.name': 'gateway-edge' },
  scopeMetrics: [{ scope: { name: 'model-gateway' }, metrics }],
});

const pointsOf = (s: MetricsSnapshot, name: string) =>
  s.scopeMetrics[0]!.metrics.find((m) => m.descriptor.name === name)!.dataPoints;

describe('mergeSnapshots', () => {
  it('adds counters and histograms of the same series, across workers', () => {
    const merged = mergeSnapshots(
      [
        { pid: 11, snapshot: snap(counter(3), histogram([1, 2, 0], 4, 0.5, 2)) },
        {
          pid: 12,
          snapshot: snap(counter(4), counter(1, '/v1/messages'), histogram([0, 1, 1], 5.5, 1.5, 4)),
        },
      ],
      { 'service.instance.id': 'pod' },
    );
    expect(merged.resource).toEqual({ 'service.instance.id': 'pod' });
    expect(pointsOf(merged, 'requests').map((p) => [p.attributes, p.value])).toEqual([
      [{ route: '/v1/chat' }, 7],
      [{ route: '/v1/messages' }, 1],
    ]);
    expect(pointsOf(merged, 'duration')[0]!.value).toEqual({
      buckets: { boundaries: [1, 2], counts: [1, 3, 1] },
      sum: 9.5,
      count: 5,
      min: 0.5,
      max: 4,
    });
  });

  it('keeps what cannot be added per process, labelled with its pid', () => {
    const merged = mergeSnapshots(
      [
        { pid: 11, snapshot: snap(gauge(5), histogram([1, 0, 0], 1, 1, 1)) },
        { pid: 12, snapshot: snap(gauge(7), histogram([1, 0], 1, 1, 1, [5])) },
      ],
      {},
    );
    expect(pointsOf(merged, 'depth').map((p) => [p.attributes, p.value])).toEqual([
      [{ queue: 'logs', 'process.pid': 11 }, 5],
      [{ queue: 'logs', 'process.pid': 12 }, 7],
    ]);
    // Buckets that differ cannot be added: the second series stands apart.
    expect(pointsOf(merged, 'duration').map((p) => p.attributes)).toEqual([{}, { 'process.pid': 12 }]);
  });

  it('leaves a dead worker only its counters and histograms (summablePart)', () => {
    const part = summablePart(snap(counter(3), gauge(5)));
    expect(part.scopeMetrics[0]!.metrics.map((m) => m.descriptor.name)).toEqual(['requests']);
  });

  it('serializes the sum as Prometheus text', () => {
    const text = snapshotText(
      mergeSnapshots(
        [
          { pid: 11, snapshot: snap(counter(3)) },
          { pid: 12, snapshot: snap(counter(4)) },
        ],
        { 'service.name': 'gateway-edge' },
      ),
    );
    expect(text).toMatch(/^requests_total\{route="\/v1\/chat",otel_scope_name="model-gateway"\} 7$/m);
  });
});
