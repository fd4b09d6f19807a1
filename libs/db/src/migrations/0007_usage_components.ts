import { type Kysely, sql } from 'kysely';

// Frozen once released, like every migration: an untyped handle, no imports from the live schema.
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- kysely's documented migration signature
type Db = Kysely<any>;

/**
 * The usage components of a request, each in its own column beside `input_tokens` (every prompt
 * token) and `cached_tokens` (the cache reads): the uncached input, the cache writes by TTL and
 * the reasoning part of the output; and `prices`, the prices it was charged at (jsonb,
 * nanocredits per million tokens), so the console can price each component as charged. Nullable
 * with no default: rows of older edges keep null (unknown), and no partition is rewritten.
 */
export async function up(db: Db): Promise<void> {
  await sql`alter table request_logs
    add column uncached_input_tokens integer,
    add column cache_write_5m_tokens integer,
    add column cache_write_1h_tokens integer,
    add column reasoning_tokens integer,
    add column prices jsonb`.execute(db);
}

export async function down(db: Db): Promise<void> {
  await sql`alter table request_logs
    drop column uncached_input_tokens,
    drop column cache_write_5m_tokens,
    drop column cache_write_1h_tokens,
    drop column reasoning_tokens,
    drop column prices`.execute(db);
}
