import { type Kysely, sql } from 'kysely';

// Frozen once released, like every migration: an untyped handle, no imports from the live schema.
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- kysely's documented migration signature
type Db = Kysely<any>;

/**
 * The usage priced apart from tokens at their plain price: `audio_input_tokens`, the uncached
 * prompt audio (a part of `uncached_input_tokens`, which vendors bill at an audio price), and
 * `web_search_requests`, the searches a vendor ran and bills per search. Nullable with no default:
 * rows of older edges keep null (unknown), and no partition is rewritten.
 */
export async function up(db: Db): Promise<void> {
  await sql`alter table request_logs
    add column audio_input_tokens integer,
    add column web_search_requests integer`.execute(db);
}

export async function down(db: Db): Promise<void> {
  await sql`alter table request_logs
    drop column audio_input_tokens,
    drop column web_search_requests`.execute(db);
}
