import { type Kysely, sql } from 'kysely';

// Frozen once released, like every migration: an untyped handle, no imports from the live schema.
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- kysely's documented migration signature
type Db = Kysely<any>;

/**
 * The audio vendors price apart from text beyond 0010's prompt audio (issue 31):
 * `cached_audio_input_tokens`, the prompt audio read from the cache (a part of `cached_tokens`,
 * Gemini's cached audio price), and `audio_output_tokens`, the speech a model answered with (a
 * part of `output_tokens`, OpenAI's and Gemini's audio output price). Nullable with no default,
 * like 0010's: rows of older edges keep null (unknown), and no partition is rewritten.
 */
export async function up(db: Db): Promise<void> {
  await sql`alter table request_logs
    add column cached_audio_input_tokens integer,
    add column audio_output_tokens integer`.execute(db);
}

export async function down(db: Db): Promise<void> {
  await sql`alter table request_logs
    drop column cached_audio_input_tokens,
    drop column audio_output_tokens`.execute(db);
}
