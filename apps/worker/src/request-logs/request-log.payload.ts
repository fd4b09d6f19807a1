import { UnrecoverableError } from 'bullmq';
import { z } from 'zod';
import { type StorableLog } from '#libs/db';
import { requestLogBatchSchema, requestLogJobSchema, usageSchema } from '#libs/queue';
import { repairLog } from './log-repair.js';

/** Postgres `uuid` accepts any hex uuid, not only RFC versions, so no z.uuid() here. */
const pgUuid = z.string().regex(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i, 'a uuid');
/** request_logs stores these as `integer`. */
const INT4_MAX = 2_147_483_647;
const int4 = z.int().nonnegative().max(INT4_MAX);
/** Postgres `text` cannot hold a NUL: refused here rather than by the batch's transaction. */
const pgText = z.string().refine((s) => !s.includes('\u0000'), 'holds a NUL character');

/**
 * The queue contract plus what the columns can hold, so a bad payload fails alone and at once
 * here, instead of failing the transaction of the whole batch it would land in.
 */
const storableJobSchema = requestLogJobSchema.extend({
  endpoint: pgText,
  group: pgText.nullable(),
  model: pgText.nullable(),
  requestedModel: pgText.max(300).nullable().default(null),
  fallbackFrom: pgText.nullable().default(null),
  providerId: pgText.nullable(),
  upstreamModel: pgText.nullable(),
  errorCode: pgText.nullable(),
  adjustments: z.array(pgText.max(300)).max(64).default([]),
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

/**
 * Validates one log. One that fails only in its descriptive fields is repaired and stored with
 * what was changed (see repairLog), so its charge is still made; one whose identity or charge is
 * unreadable throws UnrecoverableError.
 */
export function parseRequestLogJob(data: unknown): StorableLog {
  const parsed = storableJobSchema.safeParse(data);
  if (parsed.success) return parsed.data;
  const repaired = repairLog(data, parsed.error.issues);
  const reparsed = repaired && storableJobSchema.safeParse(repaired.data);
  if (repaired && reparsed?.success) return { ...reparsed.data, repairs: repaired.repairs };
  throw new UnrecoverableError(`invalid request log job: ${z.prettifyError(parsed.error)}`);
}
