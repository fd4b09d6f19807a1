import { z } from 'zod';

/** One BullMQ queue carries request logs and their charges: one job per request, job id = request id. */
export const REQUEST_LOG_QUEUE = 'request-logs';

export const attemptSchema = z.object({
  providerId: z.string(),
  /** HTTP status from upstream, or 0 when no response arrived. */
  status: z.int(),
  outcome: z.enum(['ok', 'http_error', 'connect_error', 'timeout', 'aborted', 'stream_error']),
  latencyMs: z.number().nonnegative(),
});

export const usageSchema = z.object({
  inputTokens: z.int().nonnegative(),
  outputTokens: z.int().nonnegative(),
  cachedTokens: z.int().nonnegative().default(0),
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
  model: z.string().nullable(),
  providerId: z.string().nullable(),
  upstreamModel: z.string().nullable(),
  stream: z.boolean(),
  /** HTTP status sent to the client. */
  status: z.int(),
  errorCode: z.string().nullable(),
  latencyMs: z.number().nonnegative(),
  ttftMs: z.number().nonnegative().nullable(),
  usage: usageSchema.nullable(),
  /** Cost in nanocredits (1 credit = 1e9), computed at the edge from config prices. */
  costNanos: z.int().nonnegative(),
  attempts: z.array(attemptSchema),
});

export type RequestLogJob = z.infer<typeof requestLogJobSchema>;
export type RequestLogJobInput = z.input<typeof requestLogJobSchema>;
export type Attempt = z.infer<typeof attemptSchema>;
export type Usage = z.infer<typeof usageSchema>;

/**
 * Options every producer uses. The job id is the request id (set per job): together with the
 * worker's `on conflict do nothing` it makes a redelivery harmless.
 */
export const REQUEST_LOG_JOB_OPTIONS = {
  attempts: 25,
  backoff: { type: 'exponential', delay: 1000 },
  removeOnComplete: { age: 3600, count: 10_000 },
  removeOnFail: { age: 7 * 24 * 3600 },
} as const;
