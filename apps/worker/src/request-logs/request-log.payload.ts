import { UnrecoverableError } from 'bullmq';
import { z } from 'zod';
import { type RequestLogJob, requestLogJobSchema, usageSchema } from '#libs/queue';

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

/** Validates a job payload; an invalid one throws UnrecoverableError (failed once, kept, never retried). */
export function parseRequestLogJob(data: unknown): RequestLogJob {
  const parsed = storableJobSchema.safeParse(data);
  if (!parsed.success)
    throw new UnrecoverableError(`invalid request log job: ${z.prettifyError(parsed.error)}`);
  return parsed.data;
}
