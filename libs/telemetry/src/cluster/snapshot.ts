import { type Attributes } from '@opentelemetry/api';
import { PrometheusSerializer } from '@opentelemetry/exporter-prometheus';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { type ResourceMetrics, type ScopeMetrics } from '@opentelemetry/sdk-metrics';

/**
 * One process's metrics as plain data, so they cross the cluster's IPC channel (the primary forks
 * its workers with `serialization: 'advanced'`, which also carries Infinity and NaN): the
 * collection's scopes as the SDK made them, and the resource's attributes without its methods.
 */
export interface MetricsSnapshot {
  readonly resource: Attributes;
  readonly scopeMetrics: readonly ScopeMetrics[];
}

export function toSnapshot(rm: ResourceMetrics): MetricsSnapshot {
  return { resource: { ...rm.resource.attributes }, scopeMetrics: rm.scopeMetrics };
}

const serializer = new PrometheusSerializer();

/** Prometheus text of a snapshot, exactly as a single process's `/metrics` writes its own. */
export function snapshotText(s: MetricsSnapshot): string {
  const rm: ResourceMetrics = {
    resource: resourceFromAttributes(s.resource),
    scopeMetrics: [...s.scopeMetrics],
  };
  // The serializer is typed on the exporter's own copy of sdk-metrics; the data is the same shape.
  return serializer.serialize(rm as unknown as Parameters<PrometheusSerializer['serialize']>[0]);
}
