import { z } from 'zod';
import { type LogCursor, type LogStatusFilter } from '#libs/db';
import { text } from '../http/validate.js';

const EXACT_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;
const REQUEST_ID = /^[\w.:-]{1,200}$/;

/** The opaque page cursor: base64url of `[startedAt, requestId]`. */
export function encodeCursor(cursor: LogCursor): string {
  return Buffer.from(JSON.stringify([cursor.startedAt, cursor.requestId])).toString('base64url');
}

export function decodeCursor(text: string): LogCursor | null {
  if (!/^[\w-]{1,400}$/.test(text)) return null;
  try {
    const value: unknown = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
    if (!Array.isArray(value) || value.length !== 2) return null;
    const [startedAt, requestId] = value as unknown[];
    if (typeof startedAt !== 'string' || !EXACT_TIME.test(startedAt) || Number.isNaN(Date.parse(startedAt)))
      return null;
    if (typeof requestId !== 'string' || !REQUEST_ID.test(requestId)) return null;
    return { startedAt, requestId };
  } catch {
    return null;
  }
}

/** An ISO time with offset, or a plain date (its midnight UTC); anything else is a 400. */
export const timeSchema = z
  .string()
  .max(40)
  .refine(
    (s) =>
      /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2}))?$/.test(s) &&
      !Number.isNaN(Date.parse(s)),
    'must be an ISO time such as 2026-01-31T12:00:00Z or a date such as 2026-01-31',
  )
  .transform((s) => new Date(s));

const statusSchema = z
  .string()
  .regex(/^(ok|error|[1-5]\d\d)$/, 'must be ok, error or an HTTP status code')
  .transform((s): LogStatusFilter => (s === 'ok' || s === 'error' ? s : Number(s)));

const fields = {
  from: timeSchema.optional(),
  to: timeSchema.optional(),
  model: text(200).min(1).optional(),
  keyId: z.uuid('must be a key id').optional(),
  status: statusSchema.optional(),
  cursor: z
    .string()
    .transform((s, ctx) => {
      const c = decodeCursor(s);
      if (!c) ctx.addIssue({ code: 'custom', message: 'is not a cursor this API returned' });
      return c ?? undefined;
    })
    .optional(),
  limit: z
    .string()
    .regex(/^\d{1,3}$/, 'must be a whole number from 1 to 200')
    .transform(Number)
    .pipe(z.number().int().min(1, 'must be at least 1').max(200, 'must be at most 200'))
    .optional(),
};

export const logQuerySchema = z.strictObject(fields);
export const adminLogQuerySchema = z.strictObject({
  ...fields,
  userId: z.uuid('must be a user id').optional(),
  teamId: z.uuid('must be a team id').optional(),
});
export type LogQueryInput = z.output<typeof adminLogQuerySchema>;

export const requestIdSchema = z.string().regex(REQUEST_ID, 'must be a request id');
