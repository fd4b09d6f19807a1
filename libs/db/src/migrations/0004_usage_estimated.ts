import { type Kysely, sql } from 'kysely';

// Frozen once released, like every migration: an untyped handle, no imports from the live schema.
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- kysely's documented migration signature
type Db = Kysely<any>;

/**
 * `request_logs.usage_estimated`: whether a log's tokens (and the charge made from them) are the
 * gateway's estimate rather than the provider's count. Adding a column with a constant default is
 * a catalogue change on Postgres 11+, instant on the parent and every partition.
 */
export async function up(db: Db): Promise<void> {
  await sql`alter table request_logs add column usage_estimated boolean not null default false`.execute(db);
}

export async function down(db: Db): Promise<void> {
  await sql`alter table request_logs drop column usage_estimated`.execute(db);
}
