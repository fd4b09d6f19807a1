import { type Kysely, sql } from 'kysely';
import { type AdminToken, type NewAdminToken } from './admin-tokens.table.js';
import { type Database } from './database.js';
import { exactTime, pastRow, type TimeAndId } from './keyset.js';

export async function insertAdminToken(db: Kysely<Database>, row: NewAdminToken): Promise<AdminToken> {
  return db.insertInto('admin_tokens').values(row).returningAll().executeTakeFirstOrThrow();
}

/**
 * A page of tokens, newest first (revoked and expired ones too: the list shows their state),
 * keyset on (created_at, id) after `before`, the previous page's last token.
 */
export async function listAdminTokens(
  db: Kysely<Database>,
  page: { readonly before?: TimeAndId | undefined; readonly limit: number },
): Promise<Array<AdminToken & { created_at_exact: string }>> {
  let q = db
    .selectFrom('admin_tokens')
    .selectAll()
    .select(exactTime('admin_tokens.created_at').as('created_at_exact'));
  if (page.before) q = q.where(pastRow('admin_tokens', '<', page.before));
  return q.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(page.limit).execute();
}

export async function findAdminToken(db: Kysely<Database>, id: string): Promise<AdminToken | undefined> {
  return db.selectFrom('admin_tokens').selectAll().where('id', '=', id).executeTakeFirst();
}

/** The token whose secret hashes to this, whatever its state (the caller decides expired/revoked). */
export async function findAdminTokenByHash(
  db: Kysely<Database>,
  tokenHash: string,
): Promise<AdminToken | undefined> {
  return db.selectFrom('admin_tokens').selectAll().where('token_hash', '=', tokenHash).executeTakeFirst();
}

/**
 * Revokes a token, keeping the time of its first revocation; the row (active or revoked before),
 * or undefined when there is none.
 */
export async function revokeAdminToken(db: Kysely<Database>, id: string): Promise<AdminToken | undefined> {
  return db
    .updateTable('admin_tokens')
    .set({ revoked_at: sql`coalesce(revoked_at, now())` })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst();
}

/**
 * Records a use at `at`, unless one was recorded after `skipAfter` (another console process wrote
 * it within the minute): at most one write a minute per token across processes.
 */
export async function touchAdminToken(
  db: Kysely<Database>,
  id: string,
  at: Date,
  skipAfter: Date,
): Promise<void> {
  await db
    .updateTable('admin_tokens')
    .set({ last_used_at: at })
    .where('id', '=', id)
    .where((eb) => eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<=', skipAfter)]))
    .execute();
}
