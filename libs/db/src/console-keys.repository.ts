import { type Kysely, sql } from 'kysely';
import { type ApiKey } from './api-keys.table.js';
import { type Database } from './database.js';

/** A key as the console shows it, with its owner's email (for the admin view). */
export type ConsoleKeyRow = ApiKey & { readonly user_email: string };

/** Keys newest first; every key when `userId` is undefined (admin), else that user's only. */
export async function listConsoleKeys(db: Kysely<Database>, userId?: string): Promise<ConsoleKeyRow[]> {
  let q = db
    .selectFrom('api_keys')
    .innerJoin('users', 'users.id', 'api_keys.user_id')
    .selectAll('api_keys')
    .select('users.email as user_email');
  if (userId !== undefined) q = q.where('api_keys.user_id', '=', userId);
  return q.orderBy('api_keys.created_at', 'desc').orderBy('api_keys.id', 'desc').execute();
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
    .select('users.email as user_email')
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
