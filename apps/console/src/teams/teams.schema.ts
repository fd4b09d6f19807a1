import { z } from 'zod';
import { createKeySchema } from '../keys/keys.schema.js';
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
