import { z } from 'zod';
import { text } from '../http/validate.js';
import { timeSchema } from '../logs/log-query.schema.js';

const filters = {
  actor: text(320).min(1).optional(),
  action: z
    .string()
    .regex(/^[a-z][a-z0-9_.]{0,99}$/, 'must be an action such as user.create, or a family such as user')
    .optional(),
  target: text(200).min(1).optional(),
  outcome: z.enum(['ok', 'refused']).optional(),
  from: timeSchema.optional(),
  to: timeSchema.optional(),
};

export const auditExportSchema = z.strictObject(filters);

export const auditQuerySchema = z.strictObject({
  ...filters,
  /** The `next` of the previous page: the id of its last (oldest) event. */
  cursor: z
    .string()
    .regex(/^[1-9]\d{0,18}$/, 'is not a cursor this API returned')
    .optional(),
  limit: z
    .string()
    .regex(/^\d{1,3}$/, 'must be a whole number from 1 to 200')
    .transform(Number)
    .pipe(z.number().int().min(1, 'must be at least 1').max(200, 'must be at most 200'))
    .optional(),
});
