/**
 * Every metric the gateway exports, in one place: name, kind, unit, buckets and the attributes it
 * carries. The apps record through `GatewayMetrics` (metrics.ts); the docs and the dashboard test
 * read this table, so a name exists once.
 *
 * GenAI semantic conventions where they fit: the edge is a GenAI *server* to its clients
 * (`gen_ai.server.*`: the whole request as the client saw it) and a GenAI *client* of its providers
 * (`gen_ai.client.*`: each upstream attempt, and the tokens the providers reported).
 */
export type InstrumentKind = 'histogram' | 'counter' | 'gauge';

export interface InstrumentSpec {
  readonly name: string;
  readonly kind: InstrumentKind;
  readonly unit: string;
  readonly description: string;
  readonly attributes: readonly string[];
  readonly buckets?: readonly number[];
  /** Which app records it. */
  readonly app: 'edge' | 'router' | 'worker' | 'edge+router' | 'all';
}

/** Attribute names, so no recording site spells one by hand. */
export const ATTR = {
  operation: 'gen_ai.operation.name',
  provider: 'gen_ai.provider.name',
  requestModel: 'gen_ai.request.model',
  responseModel: 'gen_ai.response.model',
  tokenType: 'gen_ai.token.type',
  inputTokens: 'gen_ai.usage.input_tokens',
  outputTokens: 'gen_ai.usage.output_tokens',
  finishReasons: 'gen_ai.response.finish_reasons',
  /** Opt-in content (OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT): JSON strings, bounded. */
  systemInstructions: 'gen_ai.system_instructions',
  inputMessages: 'gen_ai.input.messages',
  outputMessages: 'gen_ai.output.messages',
  errorType: 'error.type',
  httpMethod: 'http.request.method',
  httpRoute: 'http.route',
  httpStatus: 'http.response.status_code',
  /** Our configured provider id (a type like `openai` may have several). */
  providerId: 'gateway.provider.id',
  /** The client-facing route, e.g. /v1/chat/completions. */
  endpoint: 'gateway.endpoint',
  requestId: 'gateway.request.id',
  stream: 'gen_ai.request.stream',
  cacheTier: 'gateway.cache.tier',
  cacheResult: 'gateway.cache.result',
  queue: 'messaging.destination.name',
  jobState: 'gateway.queue.state',
  outcome: 'gateway.outcome',
  /** A translation adjustment's verb and field, indices removed: `dropped tools[]`, `added cache_control`. */
  adjustment: 'gateway.translation.adjustment',
  /** OTel runtime conventions: `minor`, `major`, `incremental`, `weakcb`. */
  gcType: 'v8js.gc.type',
  /** What an app depends on: `redis`, `postgres`. */
  dependency: 'gateway.dependency',
  /** OTel network conventions: `receive` (from the client), `transmit` (to it). */
  ioDirection: 'network.io.direction',
} as const;

/** OTel GenAI advice: durations from 10 ms to ~80 s, doubling. */
const GENAI_DURATION_S = [
  0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92,
];
const TTFT_S = [0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10];
const TOKENS = [1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304];
/** The gateway's own requests (health, models, errors) take well under a millisecond. */
const HTTP_S = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];
const WRITE_S = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const BATCH = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000];
/** WebSocket sessions: a second to the 60-minute default limit and past it. */
const SESSION_S = [1, 5, 15, 60, 300, 900, 1800, 3600, 7200];

/** GC pauses: from under a millisecond to the tens of ms that show in a p99. */
const GC_S = [0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25];

const GENAI_SERVER = [ATTR.operation, ATTR.requestModel, ATTR.provider, ATTR.providerId, ATTR.endpoint];

export const INSTRUMENTS = {
  httpServerDuration: {
    name: 'http.server.request.duration',
    kind: 'histogram',
    unit: 's',
    description: 'Every HTTP request an app served, from arrival to the last byte sent.',
    attributes: [ATTR.httpMethod, ATTR.httpRoute, ATTR.httpStatus],
    buckets: HTTP_S,
    app: 'all',
  },
  serverRequestDuration: {
    name: 'gen_ai.server.request.duration',
    kind: 'histogram',
    unit: 's',
    description: 'A model request as its client saw it: arrival to the last byte, failovers included.',
    attributes: [...GENAI_SERVER, ATTR.httpStatus, ATTR.errorType],
    buckets: GENAI_DURATION_S,
    app: 'edge',
  },
  serverTimeToFirstToken: {
    name: 'gen_ai.server.time_to_first_token',
    kind: 'histogram',
    unit: 's',
    description: 'Streamed requests: arrival to the first event sent to the client.',
    attributes: GENAI_SERVER,
    buckets: TTFT_S,
    app: 'edge',
  },
  clientOperationDuration: {
    name: 'gen_ai.client.operation.duration',
    kind: 'histogram',
    unit: 's',
    description:
      'One upstream attempt: from sending it to its answer (non-stream) or its stream end; the model is the upstream one.',
    attributes: [...GENAI_SERVER, ATTR.errorType],
    buckets: GENAI_DURATION_S,
    app: 'edge',
  },
  clientTokenUsage: {
    name: 'gen_ai.client.token.usage',
    kind: 'histogram',
    unit: '{token}',
    description: 'Tokens per request as the provider reported them, by gen_ai.token.type (input, output).',
    attributes: [...GENAI_SERVER, ATTR.tokenType],
    buckets: TOKENS,
    app: 'edge',
  },
  upstreamErrors: {
    name: 'gateway.upstream.errors',
    kind: 'counter',
    unit: '{attempt}',
    description: 'Upstream attempts that failed, by provider and error.type (http_error, timeout, ...).',
    attributes: [ATTR.requestModel, ATTR.providerId, ATTR.errorType, ATTR.httpStatus],
    app: 'edge',
  },
  failovers: {
    name: 'gateway.upstream.failovers',
    kind: 'counter',
    unit: '{attempt}',
    description: 'Attempts after the first for one request (the next candidate was tried).',
    attributes: [ATTR.requestModel, ATTR.endpoint],
    app: 'edge',
  },
  translationAdjustments: {
    name: 'gateway.translation.adjustments',
    kind: 'counter',
    unit: '{adjustment}',
    description:
      'Fields a translation carried in another shape or dropped as a hint, by provider and gateway.translation.adjustment.',
    attributes: [ATTR.endpoint, ATTR.providerId, ATTR.adjustment],
    app: 'edge',
  },
  stickyRequests: {
    name: 'gateway.routing.sticky_requests',
    kind: 'counter',
    unit: '{request}',
    description:
      "Requests routed by their agent session (its home provider first), by the provider that answered; beside the provider's count of all requests, the share its sessions make.",
    attributes: GENAI_SERVER,
    app: 'edge',
  },
  keyCacheLookups: {
    name: 'gateway.edge.key_cache.lookups',
    kind: 'counter',
    unit: '{lookup}',
    description:
      'API key lookups by tier (memory, redis) and result (hit, miss); a redis miss went to Postgres.',
    attributes: [ATTR.cacheTier, ATTR.cacheResult],
    app: 'edge',
  },
  addedLatency: {
    name: 'gateway.edge.added_latency',
    kind: 'histogram',
    unit: 's',
    description:
      "The gateway's own time in a model request that went upstream: its duration minus its upstream attempts'.",
    attributes: GENAI_SERVER,
    buckets: HTTP_S,
    app: 'edge',
  },
  dependencyUp: {
    name: 'gateway.dependency.up',
    kind: 'gauge',
    unit: '1',
    description:
      'Whether the app reached a dependency (gateway.dependency: redis, postgres) when metrics were collected: 1 yes, 0 no.',
    attributes: [ATTR.dependency],
    app: 'all',
  },
  credentialsRefreshFailing: {
    name: 'gateway.credentials.refresh_failing',
    kind: 'gauge',
    unit: '1',
    description:
      'Per provider with a cloud credential (Entra ID, Google, AWS): 1 while its last token refresh failed, else 0.',
    attributes: [ATTR.providerId],
    app: 'edge+router',
  },
  breakerState: {
    name: 'gateway.router.breaker.state',
    kind: 'gauge',
    unit: '1',
    description: "The router's breaker per provider and model: 0 closed, 1 half-open, 2 open.",
    attributes: [ATTR.providerId, ATTR.requestModel],
    app: 'router',
  },
  queueDepth: {
    name: 'gateway.queue.depth',
    kind: 'gauge',
    unit: '{job}',
    description: 'Jobs in the request-log queue by state (waiting, active, delayed, failed).',
    attributes: [ATTR.queue, ATTR.jobState],
    app: 'worker',
  },
  queueLag: {
    name: 'gateway.queue.lag',
    kind: 'gauge',
    unit: 's',
    description: 'Age of the oldest waiting job in the request-log queue (0 when none waits).',
    attributes: [ATTR.queue],
    app: 'worker',
  },
  batchSize: {
    name: 'gateway.worker.batch.size',
    kind: 'histogram',
    unit: '{log}',
    description: 'Request logs written per Postgres transaction.',
    attributes: [ATTR.outcome],
    buckets: BATCH,
    app: 'worker',
  },
  writeDuration: {
    name: 'gateway.worker.write.duration',
    kind: 'histogram',
    unit: 's',
    description: 'One batch transaction (logs, charges, balances) in Postgres, by outcome (ok, error).',
    attributes: [ATTR.outcome],
    buckets: WRITE_S,
    app: 'worker',
  },
  eventLoopDelayP99: {
    name: 'nodejs.eventloop.delay.p99',
    kind: 'gauge',
    unit: 's',
    description: 'How late the event loop ran a timer, 99th percentile over the last 10 s (per process).',
    attributes: [],
    app: 'all',
  },
  eventLoopDelayMax: {
    name: 'nodejs.eventloop.delay.max',
    kind: 'gauge',
    unit: 's',
    description:
      'The longest event-loop stall over the last 10 s (per process): a GC pause, a long synchronous step.',
    attributes: [],
    app: 'all',
  },
  processUptime: {
    name: 'process.uptime',
    kind: 'gauge',
    unit: 's',
    description: 'Seconds since the process started (per process): a drop, or a new process, is a restart.',
    attributes: [],
    app: 'all',
  },
  heapUsed: {
    name: 'v8js.memory.heap.used',
    kind: 'gauge',
    unit: 'By',
    description: 'V8 heap in use (per process, all spaces).',
    attributes: [],
    app: 'all',
  },
  heapLimit: {
    name: 'v8js.memory.heap.limit',
    kind: 'gauge',
    unit: 'By',
    description:
      'The V8 heap size at which the process stops with "JavaScript heap out of memory" (per process).',
    attributes: [],
    app: 'all',
  },
  websocketSessions: {
    name: 'gateway.edge.websocket.sessions',
    kind: 'gauge',
    unit: '{session}',
    description: 'WebSocket sessions open on the edge, by route (`/v1/responses`).',
    attributes: [ATTR.httpRoute],
    app: 'edge',
  },
  websocketSessionDuration: {
    name: 'gateway.edge.websocket.session.duration',
    kind: 'histogram',
    unit: 's',
    description: 'How long each WebSocket session lasted, from the upgrade to its close, by route.',
    attributes: [ATTR.httpRoute],
    buckets: SESSION_S,
    app: 'edge',
  },
  websocketBytes: {
    name: 'gateway.edge.websocket.bytes',
    kind: 'counter',
    unit: 'By',
    description:
      'Message bytes over WebSocket sessions, by route and `network.io.direction` (`receive` from the client, `transmit` to it).',
    attributes: [ATTR.httpRoute, ATTR.ioDirection],
    app: 'edge',
  },
  gcDuration: {
    name: 'v8js.gc.duration',
    kind: 'histogram',
    unit: 's',
    description: 'Each garbage-collection pause, by type (minor: young generation; major: full).',
    attributes: [ATTR.gcType],
    buckets: GC_S,
    app: 'all',
  },
} as const satisfies Record<string, InstrumentSpec>;

export type InstrumentName = keyof typeof INSTRUMENTS;

/**
 * The series names Prometheus shows for an instrument (what PromQL queries use): dots become
 * underscores, counters end in `_total`, histograms expose `_bucket`, `_sum` and `_count`.
 * The exporter's own serializer is checked against this in the spec.
 */
export function prometheusSeries(spec: InstrumentSpec): string[] {
  const base = spec.name.replace(/[^a-zA-Z0-9_:]/g, '_').replace(/_+/g, '_');
  if (spec.kind === 'counter') return [`${base}_total`];
  if (spec.kind === 'histogram') return [`${base}_bucket`, `${base}_sum`, `${base}_count`];
  return [base];
}

/** Every Prometheus series name the apps export. */
export function exportedPrometheusNames(): ReadonlySet<string> {
  return new Set(Object.values(INSTRUMENTS).flatMap((s: InstrumentSpec) => prometheusSeries(s)));
}
