import { type Kysely, sql } from 'kysely';

// Frozen once released, like every migration: an untyped handle, no imports from the live schema.
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- kysely's documented migration signature
type Db = Kysely<any>;

/**
 * `request_logs.repairs`: what the worker had to change to store a log whose descriptive fields it
 * could not take as sent ("adjustments: 70 items, kept 64"). The log and its charge are written
 * anyway; this says which fields are not as the edge recorded them. A constant default, so the
 * column is added without rewriting any partition.
 */
export async function up(db: Db): Promise<void> {
  await sql`alter table request_logs add column repairs text[] not null default '{}'`.execute(db);
}

export async function down(db: Db): Promise<void> {
  await sql`alter table request_logs drop column repairs`.execute(db);
}
