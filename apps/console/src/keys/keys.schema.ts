import { z } from 'zod';
import { cursorSchema, limitSchema, searchSchema, timeAndId } from '../http/page.js';
import { text } from '../http/validate.js';

export const uuidSchema = z.uuid('must be an id');

export const createKeySchema = z.strictObject({
  name: text(100).trim().min(1, 'must not be empty'),
  group: z.string().min(1).max(100),
  expiresAt: z.iso
    .datetime({ offset: true })
    .transform((s) => new Date(s))
    .refine((d) => d.getTime() > Date.now(), 'must be in the future')
    .optional()
    .nullable(),
  /** Up to a billion credits: far above any real cap, far below int8 nanocredits. */
  spendLimitCredits: z.number().min(0).max(1e9).optional().nullable(),
  /** Per-key rate limits enforced by the edge's quota gate; omitted = none. */
  rpmLimit: z.int().min(1).max(1_000_000).optional().nullable(),
  tpmLimit: z.int().min(1).max(1_000_000_000).optional().nullable(),
});
export type CreateKeyInput = z.output<typeof createKeySchema>;

/** `GET /api/keys` and a team's keys: the start of a name or display prefix, a state; a page. */
export const listKeysSchema = z.strictObject({
  q: searchSchema.optional(),
  state: z.enum(['active', 'revoked', 'expired']).optional(),
  cursor: cursorSchema(timeAndId).optional(),
  limit: limitSchema(),
});
export type ListKeysInput = z.output<typeof listKeysSchema>;

/** `GET /api/admin/keys`: as a user's, and whose (a user, a team). */
export const listAllKeysSchema = listKeysSchema.extend({
  userId: uuidSchema.optional(),
  teamId: uuidSchema.optional(),
});
export type ListAllKeysInput = z.output<typeof listAllKeysSchema>;
