import { PrometheusSerializer } from '@opentelemetry/exporter-prometheus';
import { telemetry } from './sdk.js';

/** Prometheus text exposition format, version 0.0.4. */
export const PROMETHEUS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

const serializer = new PrometheusSerializer();

/**
 * The current metrics as Prometheus text, for an app's own `GET /metrics` (no second port).
 * Observable gauges run their callbacks here, once per scrape.
 */
export async function prometheusText(): Promise<string> {
  const reader = telemetry().prometheus;
  if (!reader) return '# metrics are off (OTEL_SDK_DISABLED or OTEL_METRICS_EXPORTER without prometheus)\n';
  const { resourceMetrics } = await reader.collect();
  // The serializer is typed on the exporter's own copy of sdk-metrics; the data is the same shape.
  return serializer.serialize(resourceMetrics as unknown as Parameters<PrometheusSerializer['serialize']>[0]);
}
