import { type Attributes, type HrTime, ValueType } from '@opentelemetry/api';
import {
  AggregationTemporality,
  type CollectionResult,
  DataPointType,
  type HistogramMetricData,
  type MetricProducer,
} from '@opentelemetry/sdk-metrics';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { type InstrumentSpec } from './instruments.js';

/** Series per instrument before new attribute sets fold into one overflow series (as the SDK does). */
const MAX_SERIES = 2000;
const OVERFLOW: Attributes = { 'otel.metric.overflow': true };
const OVERFLOW_KEY = '\u0000overflow';

const hrNow = (): HrTime => {
  const ms = Date.now();
  return [Math.floor(ms / 1000), (ms % 1000) * 1e6];
};

/** One attribute set of a histogram: what a hot path keeps and records into directly. */
export interface BoundHistogram {
  record(value: number): void;
}

class Series implements BoundHistogram {
  readonly counts: number[];
  sum = 0;
  count = 0;
  min = Infinity;
  max = -Infinity;

  constructor(
    readonly attributes: Attributes,
    private readonly boundaries: readonly number[],
  ) {
    this.counts = new Array<number>(boundaries.length + 1).fill(0);
  }

  record(value: number): void {
    if (!(value >= 0)) return; // negative and NaN are dropped, as the SDK drops them
    const b = this.boundaries;
    let i = 0;
    // Explicit buckets are (previous, boundary]; a dozen boundaries: a scan beats a search.
    while (i < b.length && value > b[i]!) i++;
    this.counts[i]!++;
    this.sum += value;
    this.count++;
    if (value < this.min) this.min = value;
    if (value > this.max) this.max = value;
  }
}

/**
 * A cumulative explicit-bucket histogram whose series can be bound once and recorded into with
 * no attribute hashing. The SDK's histograms hash the attribute set on every `record()` (about
 * 1.3 µs for five attributes), which made five records per request cost ~7 µs on the edge; a
 * bound series costs a few tens of nanoseconds. Exported through a MetricProducer, so
 * Prometheus and OTLP see ordinary histograms.
 */
export class HotHistogram {
  private readonly series = new Map<string, Series>();
  private readonly boundaries: readonly number[];

  constructor(
    readonly spec: InstrumentSpec,
    private readonly startTime: HrTime,
  ) {
    this.boundaries = spec.buckets ?? [];
  }

  /** The series of an attribute set; keep it and call `record` on it on a hot path. */
  bind(attributes: Attributes): BoundHistogram {
    const key = hashAttributes(attributes);
    let s = this.series.get(key);
    if (!s) {
      if (this.series.size >= MAX_SERIES) return this.overflow();
      s = new Series(attributes, this.boundaries);
      this.series.set(key, s);
    }
    return s;
  }

  private overflow(): Series {
    let s = this.series.get(OVERFLOW_KEY);
    if (!s) {
      s = new Series(OVERFLOW, this.boundaries);
      this.series.set(OVERFLOW_KEY, s);
    }
    return s;
  }

  record(value: number, attributes: Attributes = {}): void {
    this.bind(attributes).record(value);
  }

  collect(endTime: HrTime): HistogramMetricData | null {
    if (this.series.size === 0) return null;
    return {
      descriptor: {
        name: this.spec.name,
        description: this.spec.description,
        unit: this.spec.unit,
        valueType: ValueType.DOUBLE,
      },
      aggregationTemporality: AggregationTemporality.CUMULATIVE,
      dataPointType: DataPointType.HISTOGRAM,
      dataPoints: [...this.series.values()].map((s) => ({
        startTime: this.startTime,
        endTime,
        attributes: s.attributes,
        value: {
          buckets: { boundaries: [...this.boundaries], counts: [...s.counts] },
          sum: s.sum,
          count: s.count,
          ...(s.count > 0 ? { min: s.min, max: s.max } : {}),
        },
      })),
    };
  }
}

/** Feeds the hot histograms to every metric reader next to the SDK's own instruments. */
export class HotHistograms implements MetricProducer {
  private readonly histograms = new Map<string, HotHistogram>();
  private readonly startTime = hrNow();

  constructor(private readonly scope: string) {}

  histogram(spec: InstrumentSpec): HotHistogram {
    let h = this.histograms.get(spec.name);
    if (!h) {
      h = new HotHistogram(spec, this.startTime);
      this.histograms.set(spec.name, h);
    }
    return h;
  }

  async collect(): Promise<CollectionResult> {
    const now = hrNow();
    const metrics = [...this.histograms.values()]
      .map((h) => h.collect(now))
      .filter((m): m is HistogramMetricData => m !== null);
    return {
      // The reader keeps the SDK's resource; this one is ignored.
      resourceMetrics: {
        resource: resourceFromAttributes({}),
        scopeMetrics: [{ scope: { name: this.scope }, metrics }],
      },
      errors: [],
    };
  }
}

function hashAttributes(attributes: Attributes): string {
  const keys = Object.keys(attributes).sort();
  return JSON.stringify(keys.map((k) => [k, attributes[k]]));
}

/** What a histogram is when metrics are off: records nothing. */
export const NOOP_HISTOGRAM = {
  bind: (): BoundHistogram => NOOP_BOUND,
  record: (): void => undefined,
};
const NOOP_BOUND: BoundHistogram = { record: () => undefined };
