import {
  type Attributes,
  type Counter,
  type Meter,
  type ObservableGauge,
  type ObservableResult,
  type ObservableCounter,
} from '@opentelemetry/api';
import { type BoundHistogram, type HotHistograms, NOOP_HISTOGRAM } from './hot-histograms.js';
import { INSTRUMENTS, type InstrumentSpec } from './instruments.js';

/** A histogram: record with attributes, or bind an attribute set once and record into it. */
export interface GatewayHistogram {
  bind(attributes: Attributes): BoundHistogram;
  record(value: number, attributes?: Attributes): void;
}

export type HistogramName = {
  [K in keyof typeof INSTRUMENTS]: (typeof INSTRUMENTS)[K]['kind'] extends 'histogram' ? K : never;
}[keyof typeof INSTRUMENTS];
type CounterName = {
  [K in keyof typeof INSTRUMENTS]: (typeof INSTRUMENTS)[K]['kind'] extends 'counter' ? K : never;
}[keyof typeof INSTRUMENTS];
/** Counters read at collection time from counts the apps keep, never added to per request. */
type ObservedCounter = 'keyCacheLookups' | 'stickyRequests' | 'websocketBytes';
const OBSERVED_COUNTERS: ReadonlySet<string> = new Set<ObservedCounter>([
  'keyCacheLookups',
  'stickyRequests',
  'websocketBytes',
]);
type ObservedName = GaugeName | ObservedCounter;
type GaugeName = {
  [K in keyof typeof INSTRUMENTS]: (typeof INSTRUMENTS)[K]['kind'] extends 'gauge' ? K : never;
}[keyof typeof INSTRUMENTS];

/** Reports values when a reader collects (a scrape, an OTLP push); may be async (a Redis count). */
export type ObserveCallback = (
  observe: (value: number, attributes?: Attributes) => void,
) => void | Promise<void>;

/**
 * The gateway's instruments, made from one Meter (the SDK's, or the API's no-op when telemetry is
 * off). Synchronous ones are recorded on the hot path; gauges and the observed counters are
 * read at collection time from counts the apps already keep, so they cost nothing per request.
 */
export class GatewayMetrics {
  /** False when metrics are off: callers may skip building attributes. */
  readonly enabled: boolean;
  private readonly histograms = new Map<HistogramName, GatewayHistogram>();
  private readonly counters = new Map<CounterName, Counter>();

  constructor(
    private readonly meter: Meter,
    /** Null with the no-op meter (metrics off): histograms record nothing. */
    hot: HotHistograms | null,
  ) {
    this.enabled = hot !== null;
    for (const [key, spec] of Object.entries(INSTRUMENTS) as Array<
      [keyof typeof INSTRUMENTS, InstrumentSpec]
    >) {
      if (spec.kind === 'histogram') {
        // Ours (hot-histograms.ts), not the SDK's: recorded per request, they must be cheap.
        this.histograms.set(key as HistogramName, hot ? hot.histogram(spec) : NOOP_HISTOGRAM);
      } else if (spec.kind === 'counter' && !OBSERVED_COUNTERS.has(key)) {
        this.counters.set(
          key as CounterName,
          meter.createCounter(spec.name, { unit: spec.unit, description: spec.description }),
        );
      }
    }
  }

  histogram(name: HistogramName): GatewayHistogram {
    return this.histograms.get(name)!;
  }

  counter(name: Exclude<CounterName, ObservedCounter>): Counter {
    return this.counters.get(name)!;
  }

  /**
   * Adds a source of values for a gauge (or an observed counter), read at each collection.
   * Returns the function that removes it (an app's shutdown, so a closed app reports nothing
   * stale). Several sources of one instrument (several apps in one test process) are combined:
   * counters add up, gauges keep the highest value per attribute set.
   */
  observe(name: ObservedName, callback: ObserveCallback): () => void {
    let sources = this.sources.get(name);
    if (!sources) {
      sources = new Set();
      this.sources.set(name, sources);
      this.register(name, sources);
    }
    sources.add(callback);
    return () => sources.delete(callback);
  }

  private readonly sources = new Map<ObservedName, Set<ObserveCallback>>();

  private register(name: ObservedName, sources: ReadonlySet<ObserveCallback>): void {
    const spec: InstrumentSpec = INSTRUMENTS[name];
    const options = { unit: spec.unit, description: spec.description };
    const instrument: ObservableGauge | ObservableCounter =
      spec.kind === 'counter'
        ? this.meter.createObservableCounter(spec.name, options)
        : this.meter.createObservableGauge(spec.name, options);
    const add = spec.kind === 'counter';
    instrument.addCallback(async (result: ObservableResult) => {
      const points = new Map<string, { value: number; attributes: Attributes | undefined }>();
      const observe = (value: number, attributes?: Attributes): void => {
        const key = attributes ? JSON.stringify(Object.entries(attributes).sort()) : '';
        const prev = points.get(key);
        if (!prev) points.set(key, { value, attributes });
        else prev.value = add ? prev.value + value : Math.max(prev.value, value);
      };
      // One failing source (Redis down for the queue depth) must not hide the others.
      await Promise.allSettled([...sources].map(async (source) => source(observe)));
      for (const p of points.values()) result.observe(p.value, p.attributes);
    });
  }
}
