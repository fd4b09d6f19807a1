import { type Kysely, sql } from 'kysely';

// Frozen once released, like every migration: an untyped handle, no imports from the live schema.
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- kysely's documented migration signature
type Db = Kysely<any>;

/**
 * Indexes for the console's paginated lists (issue 40; docs/console-api.md, Pagination). Each
 * list is ordered by a key one of these holds, with the id as the tiebreaker, and each filter and
 * search the pages offer has an index that starts with it, so a page (the first or a deep one) is
 * an index scan that stops after `limit` rows, never a sort of the whole table.
 * - Users by email in byte order (`collate "C"`: a prefix `like` can use the btree whatever the
 *   database's locale), alone and after role or status.
 * - Keys newest first: everyone's, one user's, one team's, the revoked, the expiring; name and
 *   display-prefix searches (lowercased, byte order).
 * - Teams by lowercased name then id.
 * - Audit filters the existing indexes missed: the actor by lowercased email, user id or token
 *   name, the target type, refusals.
 */
const INDEXES: ReadonlyArray<readonly [name: string, definition: string]> = [
  ['users_email_bytes_idx', `users ((email collate "C"))`],
  ['users_role_email_idx', `users (role, (email collate "C"))`],
  ['users_status_email_idx', `users (status, (email collate "C"))`],
  ['api_keys_created_idx', `api_keys (created_at desc, id desc)`],
  ['api_keys_user_created_idx', `api_keys (user_id, created_at desc, id desc)`],
  ['api_keys_team_created_idx', `api_keys (team_id, created_at desc, id desc) where team_id is not null`],
  ['api_keys_revoked_created_idx', `api_keys (created_at desc, id desc) where status = 'revoked'`],
  ['api_keys_expiring_created_idx', `api_keys (created_at desc, id desc) where expires_at is not null`],
  ['api_keys_name_lower_idx', `api_keys ((lower(name) collate "C"))`],
  ['api_keys_prefix_lower_idx', `api_keys ((lower(display_prefix) collate "C"))`],
  ['teams_name_lower_idx', `teams ((lower(name) collate "C"), id)`],
  ['audit_events_actor_lower_idx', `audit_events ((lower(actor_email)), id)`],
  ['audit_events_actor_id_idx', `audit_events (actor_id, id)`],
  ['audit_events_token_name_idx', `audit_events (actor_token_name, id)`],
  ['audit_events_target_type_idx', `audit_events (target_type, id)`],
  ['audit_events_refused_idx', `audit_events (id) where outcome = 'refused'`],
];

/**
 * Indexes the new ones start with, so they serve every query these did: kept, they would cost
 * each key insert a write and lead the planner to read a team's keys and sort them.
 */
const SUBSUMED: ReadonlyArray<readonly [name: string, definition: string]> = [
  ['api_keys_user_id_idx', `api_keys (user_id)`],
  ['api_keys_team_idx', `api_keys (team_id) where team_id is not null`],
];

export async function up(db: Db): Promise<void> {
  for (const [name, definition] of INDEXES)
    await sql.raw(`create index ${name} on ${definition}`).execute(db);
  for (const [name] of SUBSUMED) await sql.raw(`drop index ${name}`).execute(db);
}

export async function down(db: Db): Promise<void> {
  for (const [name, definition] of SUBSUMED)
    await sql.raw(`create index ${name} on ${definition}`).execute(db);
  for (const [name] of [...INDEXES].reverse()) await sql.raw(`drop index if exists ${name}`).execute(db);
}
