import { describe, expect, it } from '@jest/globals';
import { type Histogram } from '@opentelemetry/sdk-metrics';
import { HotHistograms } from './hot-histograms.js';
import { type InstrumentSpec } from './instruments.js';

const spec: InstrumentSpec = {
  name: 'test.duration',
  kind: 'histogram',
  unit: 's',
  description: 'd',
  attributes: ['a'],
  buckets: [0.1, 1, 10],
  app: 'all',
};

async function points(hot: HotHistograms) {
  const { resourceMetrics } = await hot.collect();
  return resourceMetrics.scopeMetrics[0]!.metrics[0]!.dataPoints as Array<{
    attributes: Record<string, unknown>;
    value: Histogram;
  }>;
}

describe('HotHistograms', () => {
  it('explicit buckets are (previous, boundary]; sum, count, min and max are kept per series', async () => {
    const hot = new HotHistograms('scope');
    const bound = hot.histogram(spec).bind({ a: 'x' });
    for (const v of [0.05, 0.1, 0.5, 1, 5, 50]) bound.record(v);
    bound.record(-1);
    bound.record(Number.NaN);
    hot.histogram(spec).record(2, { a: 'y' });
    const [x, y] = await points(hot);
    expect(x!.attributes).toEqual({ a: 'x' });
    expect(x!.value).toEqual({
      buckets: { boundaries: [0.1, 1, 10], counts: [2, 2, 1, 1] },
      sum: 56.65,
      count: 6,
      min: 0.05,
      max: 50,
    });
    expect(y!.value.count).toBe(1);
  });

  it('binding the same attributes in another key order finds the same series', async () => {
    const hot = new HotHistograms('scope');
    hot.histogram(spec).bind({ a: 1, b: 2 }).record(1);
    hot.histogram(spec).bind({ b: 2, a: 1 }).record(1);
    expect(await points(hot)).toHaveLength(1);
  });

  it('past 2000 series, new attribute sets fold into one overflow series', async () => {
    const hot = new HotHistograms('scope');
    const h = hot.histogram(spec);
    for (let i = 0; i < 2005; i++) h.record(1, { a: i });
    const all = await points(hot);
    expect(all).toHaveLength(2001);
    expect(all.find((p) => p.attributes['otel.metric.overflow'] === true)?.value.count).toBe(5);
  });

  it('nothing recorded: no metric at all', async () => {
    const hot = new HotHistograms('scope');
    hot.histogram(spec);
    expect((await hot.collect()).resourceMetrics.scopeMetrics[0]!.metrics).toEqual([]);
  });
});
