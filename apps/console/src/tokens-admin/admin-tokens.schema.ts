import { z } from 'zod';
import { cursorSchema, limitSchema, timeAndId } from '../http/page.js';
import { text } from '../http/validate.js';

/** The longest life a token may get: a year, so a forgotten token ends on its own. */
export const MAX_TOKEN_DAYS = 366;

/**
 * Roles a token may carry. No member tokens: a member's rights are over their own keys, usage and
 * logs, and a token owns none (those routes refuse tokens); members call the gateway with API keys.
 */
export const TOKEN_ROLES = ['admin', 'operator', 'auditor'] as const;
export type TokenRole = (typeof TOKEN_ROLES)[number];

export const createAdminTokenSchema = z.strictObject({
  name: text(100)
    .trim()
    .min(1, 'must not be empty')
    // The environment's token is named so in the audit trail: no named token may pose as it.
    .refine((n) => n.toLowerCase() !== 'admin token', 'is reserved for the environment token'),
  role: z.enum(TOKEN_ROLES, {
    error: (issue) =>
      issue.input === 'member'
        ? 'a token cannot be a member (it owns no keys, usage or logs); use admin, operator or auditor'
        : `must be one of ${TOKEN_ROLES.join(', ')}`,
  }),
  /** Whole days from now; required, so no token lives forever. */
  expiresInDays: z.number().int().min(1).max(MAX_TOKEN_DAYS),
});
export type CreateAdminTokenInput = z.output<typeof createAdminTokenSchema>;

/** A page of tokens, newest first. */
export const listAdminTokensSchema = z.strictObject({
  cursor: cursorSchema(timeAndId).optional(),
  limit: limitSchema(),
});
export type ListAdminTokensInput = z.output<typeof listAdminTokensSchema>;
