import { z } from 'zod';
import { cursorSchema, DEFAULT_PAGE_LIMIT, limitSchema, timeAndId } from '../http/page.js';

/** A budget to create: rolling lifetime means nothing; one model scope at most (docs/quota.md). */
export const createBudgetSchema = z
  .strictObject({
    period: z.enum(['day', 'week', 'month', 'lifetime']),
    window: z.enum(['calendar_utc', 'rolling']).default('calendar_utc'),
    /** Up to a billion credits, as spend limits. */
    limitCredits: z.number().positive().max(1e9),
    /** Count only the models of this config group... */
    modelGroup: z.string().min(1).max(100).optional().nullable(),
    /** ...or only these models. Neither: every model. */
    models: z.array(z.string().min(1).max(200)).min(1).max(100).optional().nullable(),
  })
  .refine((b) => !(b.period === 'lifetime' && b.window === 'rolling'), {
    message: 'a lifetime budget has no rolling window',
    path: ['window'],
  })
  .refine((b) => b.modelGroup == null || b.models == null, {
    message: 'give modelGroup or models, not both',
    path: ['models'],
  });
export type CreateBudgetInput = z.output<typeof createBudgetSchema>;

/** A page of an owner's budgets, oldest first. */
export const listBudgetsSchema = z.strictObject({
  cursor: cursorSchema(timeAndId).optional(),
  limit: limitSchema(),
});
export type ListBudgetsInput = z.output<typeof listBudgetsSchema>;

/** The first page, as a team's detail shows it. */
export const FIRST_BUDGETS: ListBudgetsInput = { limit: DEFAULT_PAGE_LIMIT };
