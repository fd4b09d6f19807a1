import { type Kysely, sql } from 'kysely';

// Frozen once released, like every migration: an untyped handle, never edited afterwards.
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- kysely's documented migration signature
type Db = Kysely<any>;

/**
 * Console: which groups a user may give their keys (null = the config's default groups), and an
 * index for the admin's all-users log view, newest first with request_id as the keyset tie-break.
 * Indexes on the partitioned parent cascade to every partition, present and future.
 */
export async function up(db: Db): Promise<void> {
  await db.schema
    .alterTable('users')
    .addColumn('groups', sql`text[]`)
    .execute();
  await sql`create index request_logs_started_idx on request_logs (started_at desc, request_id desc)`.execute(
    db,
  );
}

export async function down(db: Db): Promise<void> {
  await sql`drop index if exists request_logs_started_idx`.execute(db);
  await db.schema.alterTable('users').dropColumn('groups').execute();
}
