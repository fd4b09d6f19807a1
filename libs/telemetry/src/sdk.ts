import { hostname } from 'node:os';
import {
  context,
  type ContextManager,
  metrics,
  type Meter,
  trace,
  type Tracer,
  type TracerProvider,
} from '@opentelemetry/api';
import { OTLPMetricExporter } from '@opentelemetry/exporter-metrics-otlp-http';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  MeterProvider,
  MetricReader,
  PeriodicExportingMetricReader,
  type PushMetricExporter,
} from '@opentelemetry/sdk-metrics';
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BatchSpanProcessor,
  ConsoleSpanExporter,
  ParentBasedSampler,
  type Sampler,
  SimpleSpanProcessor,
  type SpanProcessor,
  TraceIdRatioBasedSampler,
  TracerProvider as SdkTracerProvider,
} from '@opentelemetry/sdk-trace';
import { type Env } from '#libs/config';
import { instrumentClients } from './clients.js';
import { AlsContextManager } from './context-manager.js';
import { HotHistograms } from './hot-histograms.js';
import { GatewayMetrics } from './metrics.js';
import { startRuntimeMetrics } from './runtime-metrics.js';
import { type TelemetrySettings, telemetrySettings, tracesOn } from './settings.js';

const SCOPE = 'model-gateway';

/**
 * A reader that collects only when asked: behind `/metrics` (each scrape collects) and in tests.
 * Ours rather than PrometheusExporter, which is built on another copy of sdk-metrics than the one
 * installed at the top; only its serializer is used (prometheus.ts).
 */
export class OnDemandReader extends MetricReader {
  protected async onForceFlush(): Promise<void> {}
  protected async onShutdown(): Promise<void> {}
}

/** What one process has running. Process-wide, like the OTel API globals it sets. */
export interface Telemetry {
  /** Spans are recorded: the hot path checks this once and skips all span work when false. */
  readonly tracing: boolean;
  readonly tracer: Tracer;
  /** Prompts and completions are recorded (on spans while tracing, and in a log line). */
  readonly captureContent: boolean;
  readonly metrics: GatewayMetrics;
  /** The reader behind `/metrics`; null when Prometheus is off. */
  readonly prometheus: OnDemandReader | null;
  readonly settings: TelemetrySettings | null;
  shutdown(): Promise<void>;
}

const OFF: Telemetry = {
  tracing: false,
  tracer: trace.getTracer(SCOPE),
  captureContent: false,
  metrics: new GatewayMetrics(metrics.getMeter(SCOPE), null),
  prometheus: null,
  settings: null,
  shutdown: async () => undefined,
};

let current: Telemetry = OFF;
let started = false;

/** The running telemetry, or the no-op one before `startTelemetry` (unit tests, tools). */
export function telemetry(): Telemetry {
  return current;
}

/**
 * Starts the SDK from the OTEL_* variables, once per process (a second call, say a test process
 * booting several apps, returns the first). Call before the app's modules are built: services
 * take their instruments when they are constructed.
 */
export function startTelemetry(env: Env, app: string): Telemetry {
  if (started) return current;
  const settings = telemetrySettings(env.otel, app);
  if (settings.disabled) {
    started = true;
    return current;
  }
  const spanProcessors: SpanProcessor[] = [];
  if (settings.traces.otlp) {
    const { url, headers } = settings.traces.otlp;
    spanProcessors.push(new BatchSpanProcessor({ exporter: new OTLPTraceExporter({ url, headers }) }));
  }
  if (settings.traces.console)
    spanProcessors.push(new SimpleSpanProcessor({ exporter: new ConsoleSpanExporter() }));
  const readers: MetricReader[] = [];
  const hot = new HotHistograms(SCOPE);
  const prometheus = settings.metrics.prometheus ? new OnDemandReader({ metricProducers: [hot] }) : null;
  if (prometheus) readers.push(prometheus);
  if (settings.metrics.otlp) {
    const { url, headers } = settings.metrics.otlp;
    readers.push(
      new PeriodicExportingMetricReader({
        // Built on the exporters' own copy of sdk-metrics (same version line): same interface.
        exporter: new OTLPMetricExporter({ url, headers }) as unknown as PushMetricExporter,
        exportIntervalMillis: settings.metrics.exportIntervalMs,
        exportTimeoutMillis: Math.min(30_000, settings.metrics.exportIntervalMs),
        metricProducers: [hot],
      }),
    );
  }
  return install({
    settings,
    tracing: tracesOn(settings),
    sampler: samplerOf(settings),
    spanProcessors,
    readers,
    hot,
    prometheus,
  });
}

export interface InstallOptions {
  readonly settings: TelemetrySettings | null;
  readonly tracing: boolean;
  readonly sampler: Sampler;
  readonly spanProcessors: SpanProcessor[];
  /** Every reader must have been built with `metricProducers: [hot]`. */
  readonly readers: MetricReader[];
  readonly hot: HotHistograms;
  readonly prometheus: OnDemandReader | null;
  readonly serviceName?: string;
  /** Tests only, where `settings` is null; otherwise the settings say. */
  readonly captureContent?: boolean;
}

/** Builds the providers, sets the API globals and patches the Redis and Postgres clients. */
export function install(opts: InstallOptions): Telemetry {
  const resource = resourceFromAttributes({
    ...opts.settings?.resourceAttributes,
    'service.name': opts.settings?.serviceName ?? opts.serviceName ?? 'gateway',
    'service.namespace': opts.settings?.resourceAttributes['service.namespace'] ?? SCOPE,
    'service.instance.id': `${hostname()}-${process.pid}`,
  });
  let tracerProvider: SdkTracerProvider | null = null;
  let contextManager: ContextManager | null = null;
  let unpatch: () => void = () => undefined;
  if (opts.tracing) {
    tracerProvider = new SdkTracerProvider({
      resource,
      sampler: opts.sampler,
      spanProcessors: opts.spanProcessors,
    });
    contextManager = new AlsContextManager().enable();
    context.setGlobalContextManager(contextManager);
    trace.setGlobalTracerProvider(tracerProvider);
    unpatch = instrumentClients(tracerProvider as TracerProvider);
  }
  const meterProvider =
    opts.readers.length > 0 ? new MeterProvider({ resource, readers: opts.readers }) : null;
  if (meterProvider) metrics.setGlobalMeterProvider(meterProvider);
  const meter: Meter = meterProvider ? meterProvider.getMeter(SCOPE) : metrics.getMeter(SCOPE);
  const gatewayMetrics = meterProvider ? new GatewayMetrics(meter, opts.hot) : OFF.metrics;
  const stopRuntime = startRuntimeMetrics(gatewayMetrics);
  started = true;
  current = {
    tracing: opts.tracing,
    tracer: tracerProvider ? tracerProvider.getTracer(SCOPE) : OFF.tracer,
    captureContent: opts.captureContent ?? opts.settings?.captureMessageContent ?? false,
    metrics: gatewayMetrics,
    prometheus: opts.prometheus,
    settings: opts.settings,
    async shutdown() {
      if (current !== this) return;
      current = OFF;
      started = false;
      unpatch();
      stopRuntime();
      await Promise.allSettled([tracerProvider?.shutdown(), meterProvider?.shutdown()]);
      if (tracerProvider) trace.disable();
      if (contextManager) context.disable();
      if (meterProvider) metrics.disable();
    },
  };
  return current;
}

/**
 * Flushes and stops exporting (SIGTERM), so the last spans and metrics are not lost; gives up
 * after `timeoutMs` rather than hold the process on an unreachable collector.
 */
export async function shutdownTelemetry(timeoutMs = 5_000): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, timeoutMs);
    timer.unref();
  });
  await Promise.race([current.shutdown(), late]);
  clearTimeout(timer);
}

function samplerOf(s: TelemetrySettings): Sampler {
  const ratio = new TraceIdRatioBasedSampler(s.traces.samplerRatio);
  switch (s.traces.sampler) {
    case 'always_on':
      return new AlwaysOnSampler();
    case 'always_off':
      return new AlwaysOffSampler();
    case 'traceidratio':
      return ratio;
    case 'parentbased_always_off':
      return new ParentBasedSampler({ root: new AlwaysOffSampler() });
    case 'parentbased_traceidratio':
      return new ParentBasedSampler({ root: ratio });
    case 'parentbased_always_on':
      return new ParentBasedSampler({ root: new AlwaysOnSampler() });
  }
}
