import { type Kysely, sql } from 'kysely';

// Frozen once released, like every migration: an untyped handle, no imports from the live schema.
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- kysely's documented migration signature
type Db = Kysely<any>;

/**
 * `request_logs.adjustments`: what translation carried in another shape or dropped as a hint for
 * the request ("dropped context_management", ...). A constant default, so the column is added
 * without rewriting any partition.
 */
export async function up(db: Db): Promise<void> {
  await sql`alter table request_logs add column adjustments text[] not null default '{}'`.execute(db);
}

export async function down(db: Db): Promise<void> {
  await sql`alter table request_logs drop column adjustments`.execute(db);
}
