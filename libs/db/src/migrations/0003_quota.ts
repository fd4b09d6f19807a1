import { type Kysely, sql } from 'kysely';

// Frozen once released, like every migration: an untyped handle, no imports from the live schema.
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- kysely's documented migration signature
type Db = Kysely<any>;

/**
 * Quota enforcement (issue 4):
 * - `quota_grants`: the credit side of the ledger. With `charges` (the debit side) it makes every
 *   balance explainable: balance_nanos = sum(grants) - sum(charges).
 * - `api_keys.rpm_limit` / `tpm_limit`: optional per-key rate limits (null = none).
 * Existing balances get one opening grant each so the ledger sums hold from the start.
 */
export async function up(db: Db): Promise<void> {
  await db.schema
    .createTable('quota_grants')
    .addColumn('id', 'bigserial', (c) => c.primaryKey())
    .addColumn('user_id', 'uuid', (c) => c.notNull().references('users.id').onDelete('cascade'))
    // Negative amounts are corrections (taking credits back); zero would record nothing.
    .addColumn('amount_nanos', 'bigint', (c) => c.notNull().check(sql`amount_nanos <> 0`))
    // The admin who granted, or null for the system (the default grant of a new user, migrations).
    .addColumn('granted_by', 'uuid', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('note', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await sql`create index quota_grants_user_created_idx on quota_grants (user_id, created_at desc)`.execute(
    db,
  );

  await sql`insert into quota_grants (user_id, amount_nanos, note)
    select user_id, balance_nanos + spent_nanos, 'opening balance (migration 0003)'
    from quota_balances where balance_nanos + spent_nanos <> 0`.execute(db);

  await db.schema
    .alterTable('api_keys')
    .addColumn('rpm_limit', 'integer', (c) => c.check(sql`rpm_limit > 0`))
    .addColumn('tpm_limit', 'integer', (c) => c.check(sql`tpm_limit > 0`))
    .execute();
}

export async function down(db: Db): Promise<void> {
  await db.schema.alterTable('api_keys').dropColumn('rpm_limit').dropColumn('tpm_limit').execute();
  await db.schema.dropTable('quota_grants').ifExists().execute();
}
