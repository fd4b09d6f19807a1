import { telemetry } from './sdk.js';
import { snapshotText, toSnapshot, type MetricsSnapshot } from './cluster/snapshot.js';

/** Prometheus text exposition format, version 0.0.4. */
export const PROMETHEUS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

export const METRICS_OFF_TEXT =
  '# metrics are off (OTEL_SDK_DISABLED or OTEL_METRICS_EXPORTER without prometheus)\n';

/** Where `/metrics` reads from when not this process alone (a cluster worker asks its primary). */
let source: (() => Promise<string>) | null = null;

/** Serves `/metrics` from elsewhere from now on; null puts this process's own metrics back. */
export function setPrometheusSource(next: (() => Promise<string>) | null): void {
  source = next;
}

/** This process's metrics now, as plain data (null when Prometheus is off). */
export async function localSnapshot(): Promise<MetricsSnapshot | null> {
  const reader = telemetry().prometheus;
  if (!reader) return null;
  const { resourceMetrics } = await reader.collect();
  return toSnapshot(resourceMetrics);
}

/**
 * The current metrics as Prometheus text, for an app's own `GET /metrics` (no second port).
 * Observable gauges run their callbacks here, once per scrape.
 */
export async function prometheusText(): Promise<string> {
  if (source) return source();
  const snapshot = await localSnapshot();
  return snapshot ? snapshotText(snapshot) : METRICS_OFF_TEXT;
}
