import { z } from 'zod';
import { USER_ROLES, USER_STATUSES } from '#libs/db';
import { emailSchema, newPasswordSchema } from '../auth/auth.schema.js';
import { cursorSchema, limitSchema, oneText, searchSchema } from '../http/page.js';
import { text } from '../http/validate.js';

/** 'user' was renamed 'member' (issue 24): a client still sending it is told so, not mapped. */
const roleSchema = z.enum(USER_ROLES, {
  error: (issue) =>
    issue.input === 'user'
      ? "the role 'user' is now called 'member'"
      : `must be one of ${USER_ROLES.join(', ')}`,
});

const groupsSchema = z.array(z.string().min(1).max(100)).max(100);

export const createUserSchema = z.strictObject({
  email: emailSchema,
  password: newPasswordSchema,
  role: roleSchema.default('member'),
  groups: groupsSchema.nullable().optional(),
});
export type CreateUserInput = z.output<typeof createUserSchema>;

export const updateUserSchema = z
  .strictObject({
    status: z.enum(USER_STATUSES).optional(),
    role: roleSchema.optional(),
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

/** `GET /api/admin/users`: the start of an email, a role, a status; a page (docs/console-api.md). */
export const listUsersSchema = z.strictObject({
  q: searchSchema.optional(),
  role: z.enum(USER_ROLES).optional(),
  status: z.enum(USER_STATUSES).optional(),
  /** The last email of the previous page, as `nextCursor` carried it. */
  cursor: cursorSchema(oneText).optional(),
  limit: limitSchema(),
});
export type ListUsersInput = z.output<typeof listUsersSchema>;
