import { type Kysely, sql } from 'kysely';

// Frozen once released, like every migration: an untyped handle, no imports from the live schema.
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- kysely's documented migration signature
type Db = Kysely<any>;

/**
 * The configuration operators change live (providers, models, groups) and the provider secrets
 * entered in the console.
 *
 * `config_versions`: every change is a new row holding the whole document, so any version can be
 * read back, diffed or restored, and "who changed what when" is the table itself. The version is
 * the primary key and a change names the version it was made on (`base + 1`): two edits of the
 * same version race for one key, and the second is refused as a conflict instead of being lost.
 *
 * `config_secrets`: envelope encryption. Each secret has its own data key (AES-256-GCM); the data
 * key is stored wrapped by a key-encryption key from the environment, named by `kek_id`, so the
 * key-encryption key can be rotated by rewrapping the data keys without touching the ciphertexts.
 */
export async function up(db: Db): Promise<void> {
  await db.schema
    .createTable('config_versions')
    .addColumn('version', 'integer', (c) => c.primaryKey().check(sql`version > 0`))
    .addColumn('document', 'jsonb', (c) => c.notNull())
    .addColumn('source', 'text', (c) =>
      c.notNull().check(sql`source in ('seed', 'console', 'api', 'import', 'restore')`),
    )
    .addColumn('author', 'text', (c) => c.notNull())
    .addColumn('comment', 'text')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await db.schema
    .createTable('config_secrets')
    .addColumn('id', 'uuid', (c) => c.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn('kek_id', 'text', (c) => c.notNull())
    .addColumn('wrapped_key', 'bytea', (c) => c.notNull())
    .addColumn('ciphertext', 'bytea', (c) => c.notNull())
    .addColumn('hint', 'text', (c) => c.notNull())
    .addColumn('created_by', 'text', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
}

export async function down(db: Db): Promise<void> {
  await db.schema.dropTable('config_secrets').execute();
  await db.schema.dropTable('config_versions').execute();
}
