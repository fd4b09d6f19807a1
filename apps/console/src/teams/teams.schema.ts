import { z } from 'zod';
import { createKeySchema } from '../keys/keys.schema.js';
import {
  cursorSchema,
  DEFAULT_PAGE_LIMIT,
  limitSchema,
  oneText,
  searchSchema,
  textAndId,
} from '../http/page.js';
import { text } from '../http/validate.js';

const name = text(100).trim().min(1, 'must not be empty');
/** Config group names; checked against the live config by the service (unknown: 400). */
const groups = z.array(z.string().min(1).max(100)).max(100);

export const createTeamSchema = z.strictObject({ name, groups: groups.default([]) });
export type CreateTeamInput = z.output<typeof createTeamSchema>;

export const updateTeamSchema = z
  .strictObject({ name: name.optional(), groups: groups.optional() })
  .refine((b) => b.name !== undefined || b.groups !== undefined, 'give name or groups');
export type UpdateTeamInput = z.output<typeof updateTeamSchema>;

export const addMemberSchema = z.strictObject({
  userId: z.uuid('must be a user id'),
  /** A team admin manages the members' team keys and sees the team's usage and logs. */
  admin: z.boolean().default(false),
});
export type AddMemberInput = z.output<typeof addMemberSchema>;

export const memberRoleSchema = z.strictObject({ admin: z.boolean() });

/** A team key: a key's fields, and (team admins only) the member it is for; default the caller. */
export const createTeamKeySchema = createKeySchema.extend({
  userId: z.uuid('must be a user id').optional(),
});
export type CreateTeamKeyInput = z.output<typeof createTeamKeySchema>;

/** `GET /api/admin/teams`: the start of a name (any case); a page in name order. */
export const listTeamsSchema = z.strictObject({
  q: searchSchema.optional(),
  cursor: cursorSchema(textAndId).optional(),
  limit: limitSchema(),
});
export type ListTeamsInput = z.output<typeof listTeamsSchema>;

/** A team's members: the start of an email; a page in email order. */
export const listMembersSchema = z.strictObject({
  q: searchSchema.optional(),
  cursor: cursorSchema(oneText).optional(),
  limit: limitSchema(),
});
export type ListMembersInput = z.output<typeof listMembersSchema>;

/** The first page of members, as a change to them answers with. */
export const FIRST_MEMBERS: ListMembersInput = { limit: DEFAULT_PAGE_LIMIT };
