import { type Kysely } from 'kysely';
import { type Database } from './database.js';
import { type KeyInvalidation } from './key-invalidations.table.js';

/** Records key changes to announce; call in the transaction that makes the change. */
export async function enqueueKeyInvalidations(
  db: Kysely<Database>,
  keyHashes: readonly string[],
): Promise<KeyInvalidation[]> {
  if (keyHashes.length === 0) return [];
  return db
    .insertInto('key_invalidations')
    .values(keyHashes.map((key_hash) => ({ key_hash })))
    .returningAll()
    .execute();
}

/** The oldest announcements still owed. */
export async function pendingKeyInvalidations(
  db: Kysely<Database>,
  limit: number,
): Promise<KeyInvalidation[]> {
  return db.selectFrom('key_invalidations').selectAll().orderBy('id').limit(limit).execute();
}

/** Forgets announcements that were made. */
export async function deleteKeyInvalidations(db: Kysely<Database>, ids: readonly string[]): Promise<void> {
  if (ids.length === 0) return;
  await db.deleteFrom('key_invalidations').where('id', 'in', ids).execute();
}

/** A change to keys made in a transaction: its result and the hashes of the keys it changed. */
export type KeyChange<T> = (
  trx: Kysely<Database>,
) => Promise<{ readonly result: T; readonly keyHashes: readonly string[] }>;

/** Runs a change to keys and records what the edges must hear of it, in one transaction. */
export async function changeKeys<T>(
  db: Kysely<Database>,
  change: KeyChange<T>,
): Promise<{ result: T; owed: KeyInvalidation[] }> {
  return db.transaction().execute(async (trx) => {
    const { result, keyHashes } = await change(trx);
    return { result, owed: await enqueueKeyInvalidations(trx, keyHashes) };
  });
}
