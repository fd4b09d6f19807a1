import { type Kysely, sql } from 'kysely';

// Frozen once released, like every migration: an untyped handle, no imports from the live schema.
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- kysely's documented migration signature
type Db = Kysely<any>;

/**
 * `input_characters`: the prompt characters a vendor bills per character (Vertex's text embedding
 * models, its `billableCharacterCount`), which the model's `input_characters` fee is charged on.
 * Nullable with no default, like 0010's counters: rows of older edges keep null (unknown), and no
 * partition is rewritten.
 */
export async function up(db: Db): Promise<void> {
  await sql`alter table request_logs add column input_characters integer`.execute(db);
}

export async function down(db: Db): Promise<void> {
  await sql`alter table request_logs drop column input_characters`.execute(db);
}
