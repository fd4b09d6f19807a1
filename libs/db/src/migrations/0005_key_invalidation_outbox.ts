import { type Kysely, sql } from 'kysely';

// Frozen once released, like every migration: an untyped handle, no imports from the live schema.
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- kysely's documented migration signature
type Db = Kysely<any>;

/**
 * `key_invalidations`: the outbox of key changes edges must hear of. A row is written in the same
 * transaction as the change (revoke, owner disabled or enabled) and deleted once the invalidation
 * was announced on Redis, so a change made while Redis is down is announced when it is back.
 */
export async function up(db: Db): Promise<void> {
  await db.schema
    .createTable('key_invalidations')
    .addColumn('id', 'bigserial', (c) => c.primaryKey())
    .addColumn('key_hash', 'text', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
}

export async function down(db: Db): Promise<void> {
  await db.schema.dropTable('key_invalidations').execute();
}
