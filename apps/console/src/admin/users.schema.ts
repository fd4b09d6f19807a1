import { z } from 'zod';
import { USER_ROLES, USER_STATUSES } from '#libs/db';
import { emailSchema, newPasswordSchema } from '../auth/auth.schema.js';
import { text } from '../http/validate.js';

const groupsSchema = z.array(z.string().min(1).max(100)).max(100);

export const createUserSchema = z.strictObject({
  email: emailSchema,
  password: newPasswordSchema,
  role: z.enum(USER_ROLES).default('user'),
  groups: groupsSchema.nullable().optional(),
});
export type CreateUserInput = z.output<typeof createUserSchema>;

export const updateUserSchema = z
  .strictObject({
    status: z.enum(USER_STATUSES).optional(),
    role: z.enum(USER_ROLES).optional(),
    groups: groupsSchema.nullable().optional(),
  })
  .refine((u) => Object.keys(u).length > 0, 'name at least one of status, role, groups');
export type UpdateUserInput = z.output<typeof updateUserSchema>;

export const grantSchema = z.strictObject({
  /** Credits to add; negative takes back. A million credits per grant at most, to catch typos. */
  credits: z
    .number()
    .min(-1e6)
    .max(1e6)
    .refine((c) => Math.abs(c) >= 1e-9, 'must not be zero'),
  note: text(500).trim().default(''),
});
