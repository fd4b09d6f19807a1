import { z } from 'zod';

/**
 * One BullMQ queue carries request logs and their charges. A job is a batch of logs (one edge
 * flush), not one request: BullMQ's fixed cost per job (its add, moveToActive and moveToFinished
 * Lua scripts) measured 106 µs of worker CPU and 121 µs of Redis per request when every log was
 * its own job, so it is paid once per flush instead. Duplicates are harmless: the worker writes by
 * request id with `on conflict do nothing`.
 */
export const REQUEST_LOG_QUEUE = 'request-logs';
/** Name of a batch job. Edges from before batching sent one log per job, named `log`. */
export const REQUEST_LOG_BATCH_JOB = 'logs';
/** The most logs one job carries: bounds the job's size in Redis and what a worker holds per job. */
export const MAX_LOGS_PER_JOB = 1000;

export const attemptSchema = z.object({
  providerId: z.string(),
  /** HTTP status from upstream, or 0 when no response arrived. */
  status: z.int(),
  /** `limited`: skipped by the gateway's own provider limit (max_concurrency / rpm); no upstream call. */
  outcome: z.enum(['ok', 'http_error', 'connect_error', 'timeout', 'aborted', 'stream_error', 'limited']),
  latencyMs: z.number().nonnegative(),
  /**
   * Why the attempt failed, when the provider said so in words the gateway records: a refusal of
   * the gateway's credentials ("credentials refused: AccessDeniedException: ..."), bounded and
   * escaped at the edge. Absent otherwise (and in jobs of older edges).
   */
  reason: z.string().max(300).optional(),
  /**
   * The model the attempt was for, on every attempt of a request that fell back to another model
   * (docs/routing.md, "Fallbacks"); absent otherwise (and in jobs of older edges).
   */
  model: z.string().max(200).optional(),
});

/**
 * The canonical usage (`CanonicalUsage` in `#libs/providers`): cached and written tokens are parts
 * of `inputTokens`, reasoning tokens part of `outputTokens`. Absent parts (older edges) are 0.
 */
export const usageSchema = z.object({
  inputTokens: z.int().nonnegative(),
  outputTokens: z.int().nonnegative(),
  cachedTokens: z.int().nonnegative().default(0),
  cacheWrite5mTokens: z.int().nonnegative().default(0),
  cacheWrite1hTokens: z.int().nonnegative().default(0),
  reasoningTokens: z.int().nonnegative().default(0),
  /** Uncached prompt audio (a part of the uncached input); absent when none was reported. */
  audioInputTokens: z.int().nonnegative().optional(),
  /** Prompt audio read from the cache (a part of the cache reads); absent when none was reported. */
  cachedAudioInputTokens: z.int().nonnegative().optional(),
  /** Audio output (a part of the output); absent when none was reported. */
  audioOutputTokens: z.int().nonnegative().optional(),
  /** Web searches the vendor billed per search; absent when none was reported. */
  webSearchRequests: z.int().nonnegative().optional(),
  /** Prompt characters the vendor billed per character; absent when none was reported. */
  inputCharacters: z.int().nonnegative().optional(),
});

/** The prices a request was charged at (`AppliedPrices` in `#libs/quota`), nanocredits per million tokens. */
export const appliedPricesSchema = z.object({
  input: z.int().nonnegative(),
  output: z.int().nonnegative(),
  cacheRead: z.int().nonnegative(),
  cacheWrite5m: z.int().nonnegative(),
  cacheWrite1h: z.int().nonnegative(),
  tier: z.int().nullable(),
  fallback: z.array(z.enum(['cache_read', 'cache_write_5m', 'cache_write_1h'])).readonly(),
  /** The audio input price; absent when the model sets none (audio is then input). */
  inputAudio: z.int().nonnegative().optional(),
  /** The cached audio price; absent when the model sets none (cached audio is then a cache read). */
  cacheReadAudio: z.int().nonnegative().optional(),
  /** The audio output price; absent when the model sets none (audio output is then output). */
  outputAudio: z.int().nonnegative().optional(),
  /** Per-request fees, nanocredits per thousand counted; absent when the model sets none. */
  fees: z
    .object({
      webSearchRequests: z.int().nonnegative().optional(),
      requests: z.int().nonnegative().optional(),
      inputCharacters: z.int().nonnegative().optional(),
    })
    .optional(),
});

export const requestLogJobSchema = z.object({
  v: z.literal(1),
  requestId: z.string().min(1).max(100),
  /** ISO time the request arrived; also the partition key of request_logs. */
  startedAt: z.iso.datetime(),
  keyId: z.string().nullable(),
  userId: z.string().nullable(),
  group: z.string().nullable(),
  endpoint: z.string(),
  /** The model that answered (or was to answer) and whose prices were charged; null before one was known. */
  model: z.string().nullable(),
  /**
   * The model as the client named it: a model id or an alias (bounded and escaped at the edge);
   * null when it named none. Absent in jobs of older edges.
   */
  requestedModel: z.string().max(300).nullable().default(null),
  /**
   * When a fallback answered: the model the request was for (its alias resolved), which could not
   * answer; `model` is the one that did. Null otherwise, and in jobs of older edges.
   */
  fallbackFrom: z.string().nullable().default(null),
  providerId: z.string().nullable(),
  upstreamModel: z.string().nullable(),
  stream: z.boolean(),
  /** HTTP status sent to the client. */
  status: z.int(),
  errorCode: z.string().nullable(),
  latencyMs: z.number().nonnegative(),
  ttftMs: z.number().nonnegative().nullable(),
  usage: usageSchema.nullable(),
  /**
   * The usage is the gateway's estimate (`ceil(chars / 4)`), not the provider's count: a stream cut
   * before its final usage, or an answer that reported none. Absent in jobs of older edges.
   */
  usageEstimated: z.boolean().default(false),
  /**
   * What translation carried in another shape or dropped as a hint ("dropped context_management",
   * "flattened tools[4] namespace x (5 tools)"). Absent in jobs of older edges.
   */
  adjustments: z.array(z.string().max(300)).max(64).default([]),
  /** Cost in nanocredits (1 credit = 1e9), computed at the edge from config prices. */
  costNanos: z.int().nonnegative(),
  /** The prices `costNanos` was computed at; null for a model without prices. Absent in jobs of older edges. */
  prices: appliedPricesSchema.nullable().default(null),
  attempts: z.array(attemptSchema),
  /**
   * W3C traceparent of the request's server span, only while tracing is on: the worker links (or,
   * for a batch of one, parents) its spans to it. Never stored in Postgres.
   */
  traceparent: z.string().max(64).optional(),
});

export type RequestLogJob = z.infer<typeof requestLogJobSchema>;
export type RequestLogJobInput = z.input<typeof requestLogJobSchema>;
export type Attempt = z.infer<typeof attemptSchema>;
export type Usage = z.infer<typeof usageSchema>;
export type LoggedPrices = z.infer<typeof appliedPricesSchema>;

/**
 * A job: up to MAX_LOGS_PER_JOB logs. The logs stay `unknown` here; the worker validates them one
 * by one, so one bad log fails alone instead of sinking the whole batch.
 */
export const requestLogBatchSchema = z.object({
  v: z.literal(1),
  logs: z.array(z.unknown()).min(1).max(MAX_LOGS_PER_JOB),
});

export type RequestLogBatch = z.infer<typeof requestLogBatchSchema>;

/**
 * The job id of a batch: its first request id and its size. Deterministic, so a producer resending
 * a batch that did reach Redis (a lost reply) is dropped by BullMQ while the first job is kept. The
 * size is part of it because an edge retries with its whole buffer, which may have grown since: a
 * batch starting with the same log but holding more must not be taken for the one already sent.
 * (An edge's logs are one ordered stream, so first log + size names one slice of it.) BullMQ
 * refuses ids with ':'; request ids never hold one, but a bad id must not wedge the producer.
 */
export function logBatchJobId(logs: readonly Pick<RequestLogJob, 'requestId'>[]): string {
  const first = logs[0];
  if (!first) throw new Error('a request log batch holds at least one log');
  return `logs_${first.requestId.replaceAll(':', '_')}_${logs.length}`;
}

/** The backoff type request-log jobs name; the worker registers `requestLogRetryDelayMs` for it. */
export const REQUEST_LOG_BACKOFF = 'request-log';

/**
 * Exponential from 1 s, capped at 10 s. Uncapped, a job whose retry fell just before Postgres came
 * back waited another 32-64 s after a 30 s outage (the drain took minutes when CI was busy); capped,
 * jobs drain within 10 s of Postgres's return, however long the outage.
 */
export function requestLogRetryDelayMs(attemptsMade: number): number {
  return Math.min(1000 * 2 ** Math.max(0, attemptsMade - 1), 10_000);
}

/**
 * Options every producer uses, with `jobId: logBatchJobId(logs)` set per job. Retries are safe:
 * the worker skips request ids already stored. 10,000 attempts at most 10 s apart ride out a
 * Postgres outage of more than a day before a job fails for good. Completed jobs are kept by a
 * count of jobs, and a job holds up to MAX_LOGS_PER_JOB logs (~560 bytes each), so the count is
 * small. Failed jobs keep their logs for a week (they are the logs that did not land).
 */
export const REQUEST_LOG_JOB_OPTIONS = {
  attempts: 10_000,
  backoff: { type: REQUEST_LOG_BACKOFF },
  removeOnComplete: { age: 3600, count: 1000 },
  removeOnFail: { age: 7 * 24 * 3600 },
} as const;
