import { type Kysely, sql } from 'kysely';

// Frozen once released, like every migration: an untyped handle, no imports from the live schema.
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- kysely's documented migration signature
type Db = Kysely<any>;

/**
 * Roles and named admin tokens (issue 24).
 *
 * Roles: 'user' becomes 'member', and operator and auditor join admin. Every existing user is
 * renamed in place; the check constraint then refuses 'user', so an old client or script writing it
 * fails loudly instead of creating a role nobody reads.
 *
 * admin_tokens: the console's named tokens for automation, each with a role and a required expiry.
 * Only the SHA-256 of the secret is stored (the secret has 256 bits of entropy, so a fast hash is
 * enough); display_prefix is the secret's first characters, enough to recognise it in a list.
 * last_used_at is written at most once a minute per token by the console, not on every request.
 */
export async function up(db: Db): Promise<void> {
  await sql`alter table users drop constraint users_role_check`.execute(db);
  await sql`update users set role = 'member' where role = 'user'`.execute(db);
  await sql`alter table users
    alter column role set default 'member',
    add constraint users_role_check check (role in ('admin', 'operator', 'auditor', 'member'))`.execute(db);

  await db.schema
    .createTable('admin_tokens')
    .addColumn('id', 'uuid', (c) => c.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn('name', 'text', (c) => c.notNull().check(sql`length(name) between 1 and 100`))
    .addColumn('role', 'text', (c) =>
      c.notNull().check(sql`role in ('admin', 'operator', 'auditor', 'member')`),
    )
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('display_prefix', 'text', (c) => c.notNull())
    /** The user who created it; null when the bootstrap token did (or the user was deleted). */
    .addColumn('created_by_user', 'uuid', (c) => c.references('users.id').onDelete('set null'))
    /** Who created it, in words (an email or a token's name), kept when the user row goes. */
    .addColumn('created_by', 'text', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('expires_at', 'timestamptz', (c) => c.notNull())
    .addColumn('revoked_at', 'timestamptz')
    .addColumn('last_used_at', 'timestamptz')
    .addCheckConstraint('admin_tokens_expiry_after_creation', sql`expires_at > created_at`)
    .execute();
  await db.schema
    .createIndex('admin_tokens_created_at_idx')
    .on('admin_tokens')
    .column('created_at')
    .execute();
}

export async function down(db: Db): Promise<void> {
  await db.schema.dropTable('admin_tokens').execute();
  await sql`alter table users drop constraint users_role_check`.execute(db);
  // The old schema knows two roles: operators and auditors lose their rights rather than gain admin.
  await sql`update users set role = 'user' where role <> 'admin'`.execute(db);
  await sql`alter table users
    alter column role set default 'user',
    add constraint users_role_check check (role in ('user', 'admin'))`.execute(db);
}
