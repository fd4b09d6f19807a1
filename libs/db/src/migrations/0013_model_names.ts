import { type Kysely, sql } from 'kysely';

// Frozen once released, like every migration: an untyped handle, no imports from the live schema.
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- kysely's documented migration signature
type Db = Kysely<any>;

/**
 * What a request named and what answered it, beside `model` (the model that answered and was
 * charged): `requested_model`, the client's name for it (a model id or an alias), and
 * `fallback_from`, the model the request was for when a fallback answered instead. Nullable with
 * no default: rows of older edges keep null, and no partition is rewritten.
 */
export async function up(db: Db): Promise<void> {
  await sql`alter table request_logs
    add column requested_model text,
    add column fallback_from text`.execute(db);
}

export async function down(db: Db): Promise<void> {
  await sql`alter table request_logs
    drop column requested_model,
    drop column fallback_from`.execute(db);
}
