import { UnrecoverableError } from 'bullmq';
import { z } from 'zod';
import { requestLogBatchSchema, type RequestLogJob, requestLogJobSchema, usageSchema } from '#libs/queue';

/** Postgres `uuid` accepts any hex uuid, not only RFC versions, so no z.uuid() here. */
const pgUuid = z.string().regex(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i, 'a uuid');
/** request_logs stores these as `integer`. */
const INT4_MAX = 2_147_483_647;
const int4 = z.int().nonnegative().max(INT4_MAX);

/**
 * The queue contract plus what the columns can hold, so a bad payload fails alone and at once
 * here, instead of failing the transaction of the whole batch it would land in.
 */
const storableJobSchema = requestLogJobSchema.extend({
  keyId: pgUuid.nullable(),
  userId: pgUuid.nullable(),
  latencyMs: z.number().nonnegative().max(INT4_MAX),
  ttftMs: z.number().nonnegative().max(INT4_MAX).nullable(),
  usage: usageSchema
    .extend({ inputTokens: int4, outputTokens: int4, cachedTokens: int4.default(0) })
    .nullable(),
});

/**
 * Jobs named `log` come from edges deployed before batching (one log per job); during a rolling
 * deploy they still sit in the queue, and drain as batches of one.
 */
const SINGLE_LOG_JOB = 'log';

/**
 * The logs of a job, not validated yet (each is checked alone by `parseRequestLogJob`). An invalid
 * envelope throws UnrecoverableError: failed once, kept with its data, never retried.
 */
export function logsOfJob(name: string, data: unknown): readonly unknown[] {
  if (name === SINGLE_LOG_JOB) return [data];
  const parsed = requestLogBatchSchema.safeParse(data);
  if (!parsed.success)
    throw new UnrecoverableError(`invalid request log batch: ${z.prettifyError(parsed.error)}`);
  return parsed.data.logs;
}

/** Validates one log; an invalid one throws UnrecoverableError. */
export function parseRequestLogJob(data: unknown): RequestLogJob {
  const parsed = storableJobSchema.safeParse(data);
  if (!parsed.success)
    throw new UnrecoverableError(`invalid request log job: ${z.prettifyError(parsed.error)}`);
  return parsed.data;
}
