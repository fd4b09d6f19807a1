export * from './src/settings.js';
export * from './src/instruments.js';
export { promqlMetricNames } from './src/promql.js';
export * from './src/metrics.js';
export {
  CredentialGauge,
  type CredentialStates,
  type DependencyCheck,
  DependencyGauges,
} from './src/health-gauges.js';
export { type BoundHistogram } from './src/hot-histograms.js';
export * from './src/sdk.js';
export * from './src/prometheus.js';
export * from './src/trace-context.js';
// The loggers live in #libs/logging (light enough for scripts); apps keep finding them here.
export * from '#libs/logging';
export * from './src/http.js';
export * from './src/metrics.controller.js';
export * from './src/genai.js';
export * from './src/genai-messages.js';
// Bounding recorded content is the protocol's (providers bound transcripts without the SDK).
export { boundedJson, CONTENT_MAX_BYTES, TRUNCATED_MARK } from '#libs/protocol';
export * from './src/testing.js';
export { ClusterMetricsHub, joinClusterMetrics } from './src/cluster/ipc.js';
export { mergeSnapshots, PROCESS_PID, type WorkerSnapshot } from './src/cluster/merge.js';
export { type MetricsSnapshot, snapshotText } from './src/cluster/snapshot.js';
