import { type DataPoint, type Histogram, type ResourceMetrics } from '@opentelemetry/sdk-metrics';
import {
  AlwaysOnSampler,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace';
import { HotHistograms } from './hot-histograms.js';
import { install, OnDemandReader, telemetry } from './sdk.js';

export interface TestTelemetry {
  /** Every ended span, in end order. */
  readonly spans: InMemorySpanExporter;
  /** Cumulative metrics now (observable gauges are read at this moment). */
  collect(): Promise<ResourceMetrics>;
  /** Puts the no-op telemetry back (the next install starts fresh). */
  uninstall(): Promise<void>;
}

export interface TestTelemetryOptions {
  /** OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT as the apps will see it (default off). */
  readonly captureContent?: boolean;
}

/**
 * Test hook: tracing on (every span sampled, exported synchronously to memory), metrics readable
 * on demand and on `/metrics`. Install before creating the apps; their services take the
 * instruments when they are constructed.
 */
export async function installTestTelemetry(opts: TestTelemetryOptions = {}): Promise<TestTelemetry> {
  await telemetry().shutdown();
  const spans = new InMemorySpanExporter();
  const hot = new HotHistograms('model-gateway');
  const reader = new OnDemandReader({ metricProducers: [hot] });
  const prometheus = new OnDemandReader({ metricProducers: [hot] });
  const t = install({
    settings: null,
    serviceName: 'gateway-test',
    tracing: true,
    sampler: new AlwaysOnSampler(),
    spanProcessors: [new SimpleSpanProcessor({ exporter: spans })],
    readers: [reader, prometheus],
    hot,
    prometheus,
    captureContent: opts.captureContent ?? false,
  });
  return {
    spans,
    async collect() {
      const { resourceMetrics, errors } = await reader.collect();
      if (errors.length > 0) throw errors[0];
      return resourceMetrics;
    },
    uninstall: () => t.shutdown(),
  };
}

/** The data points of one metric (by OTel name) in a collection; [] when it has none. */
export function pointsOf(rm: ResourceMetrics, name: string): DataPoint<number | Histogram>[] {
  for (const scope of rm.scopeMetrics) {
    for (const metric of scope.metrics) {
      if (metric.descriptor.name === name) return metric.dataPoints as DataPoint<number | Histogram>[];
    }
  }
  return [];
}

/** Spans by name. */
export function spansNamed(exporter: InMemorySpanExporter, name: string | RegExp): ReadableSpan[] {
  return exporter
    .getFinishedSpans()
    .filter((s) => (typeof name === 'string' ? s.name === name : name.test(s.name)));
}
