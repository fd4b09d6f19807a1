import { type Kysely, sql } from 'kysely';
import { type ApiKey } from './api-keys.table.js';
import { type Database } from './database.js';
import { exactTime, lowerBytewise, pastRow, startsWith, type TimeAndId } from './keyset.js';

/** A key as the console shows it, with its owner's email (for the admin view). */
export type ConsoleKeyRow = ApiKey & {
  readonly user_email: string;
  /** created_at to the microsecond, as text: the next page's cursor. */
  readonly created_at_exact: string;
};

/** A key's state as lists filter it: `expired` is an active row past its expiry. */
export type ConsoleKeyState = 'active' | 'revoked' | 'expired';

/** What a key list asks for: whose keys, filters, where the page starts, how many rows. */
export interface ConsoleKeyQuery {
  /** One user's keys; undefined = everyone's (admin). */
  readonly userId?: string | undefined;
  /** One team's keys (docs/teams.md). */
  readonly teamId?: string | undefined;
  readonly state?: ConsoleKeyState | undefined;
  /** The start of the key's name (any case) or of its display prefix (`sk-abcd`). */
  readonly search?: string | undefined;
  /** The previous page's last key: its exact creation time and id. */
  readonly before?: TimeAndId | undefined;
  readonly limit: number;
}

/**
 * One page of keys, newest first, keyset-paginated on (created_at, id). Migration 0022's indexes
 * serve each scope: (created_at, id) for everyone's, (user_id, created_at, id) for one user's,
 * (team_id, created_at, id) for a team's, (status, created_at, id) for revoked keys; a search
 * reads the name and display-prefix indexes and sorts only what matches.
 */
export async function listConsoleKeys(db: Kysely<Database>, q: ConsoleKeyQuery): Promise<ConsoleKeyRow[]> {
  let query = db
    .selectFrom('api_keys')
    .innerJoin('users', 'users.id', 'api_keys.user_id')
    .selectAll('api_keys')
    .select(['users.email as user_email', exactTime('api_keys.created_at').as('created_at_exact')]);
  if (q.userId !== undefined) query = query.where('api_keys.user_id', '=', q.userId);
  if (q.teamId !== undefined) query = query.where('api_keys.team_id', '=', q.teamId);
  if (q.state === 'revoked') query = query.where('api_keys.status', '=', 'revoked');
  if (q.state === 'active')
    query = query
      .where('api_keys.status', '=', 'active')
      .where((eb) =>
        eb.or([eb('api_keys.expires_at', 'is', null), eb('api_keys.expires_at', '>', sql<Date>`now()`)]),
      );
  if (q.state === 'expired')
    query = query
      .where('api_keys.status', '=', 'active')
      .where('api_keys.expires_at', 'is not', null)
      .where('api_keys.expires_at', '<=', sql<Date>`now()`);
  if (q.search) {
    const pattern = startsWith(q.search);
    query = query.where((eb) =>
      eb.or([
        eb(lowerBytewise('api_keys.name'), 'like', pattern),
        eb(lowerBytewise('api_keys.display_prefix'), 'like', pattern),
      ]),
    );
  }
  if (q.before) query = query.where(pastRow('api_keys', '<', q.before));
  return query.orderBy('api_keys.created_at', 'desc').orderBy('api_keys.id', 'desc').limit(q.limit).execute();
}

/** The key with this id, when it belongs to `userId` (or to anyone when `userId` is undefined). */
export async function findConsoleKey(
  db: Kysely<Database>,
  id: string,
  userId?: string,
): Promise<ConsoleKeyRow | undefined> {
  let q = db
    .selectFrom('api_keys')
    .innerJoin('users', 'users.id', 'api_keys.user_id')
    .selectAll('api_keys')
    .select(['users.email as user_email', exactTime('api_keys.created_at').as('created_at_exact')])
    .where('api_keys.id', '=', id);
  if (userId !== undefined) q = q.where('api_keys.user_id', '=', userId);
  return q.executeTakeFirst();
}

/**
 * Marks a key revoked, keeping the time of its first revocation; the row, whether it was active
 * or revoked already (a repeated revoke announces again), or undefined when it does not exist.
 */
export async function revokeApiKey(db: Kysely<Database>, id: string): Promise<ApiKey | undefined> {
  return db
    .updateTable('api_keys')
    .set({ status: 'revoked', revoked_at: sql`coalesce(revoked_at, now())` })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst();
}

/** Hashes of every key of a user: what edges must forget when the user is disabled or enabled. */
export async function keyHashesOfUser(db: Kysely<Database>, userId: string): Promise<string[]> {
  const rows = await db.selectFrom('api_keys').select('key_hash').where('user_id', '=', userId).execute();
  return rows.map((r) => r.key_hash);
}
