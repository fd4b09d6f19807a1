import { type Kysely, sql } from 'kysely';

// Frozen once released, like every migration: an untyped handle, no imports from the live schema.
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- kysely's documented migration signature
type Db = Kysely<any>;

/**
 * Budgets by period (issue 13, item 5; docs/quota.md):
 * - `budgets`: spend limits of a key (`key_id`) or of all of a user's keys (`key_id` null) per
 *   day, week, month or lifetime, over a calendar UTC window or a rolling one (not for lifetime),
 *   optionally counting only a config group's models or a named set of models.
 * - `charges.started_at` and `charges.model`: which window and which budgets a charge counts in
 *   (the request's start, as in its log). Budget spend is rebuilt from `charges`, which keeps
 *   every row, not from `request_logs`, whose partitions are dropped after the retention. Older
 *   charges take their log's values while the log is kept, else their own `created_at` and no
 *   model (they count only in budgets over every model).
 */
export async function up(db: Db): Promise<void> {
  await db.schema
    .createTable('budgets')
    .addColumn('id', 'uuid', (c) => c.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn('user_id', 'uuid', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('key_id', 'uuid', (c) => c.references('api_keys.id').onDelete('cascade'))
    .addColumn('period', 'text', (c) =>
      c.notNull().check(sql`period in ('day', 'week', 'month', 'lifetime')`),
    )
    .addColumn('window_kind', 'text', (c) =>
      c.notNull().check(sql`window_kind in ('calendar_utc', 'rolling')`),
    )
    .addColumn('limit_nanos', 'bigint', (c) => c.notNull().check(sql`limit_nanos > 0`))
    .addColumn('model_group', 'text')
    .addColumn('models', sql`text[]`)
    .addColumn('created_by', 'uuid', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addCheckConstraint(
      'budgets_lifetime_not_rolling',
      sql`not (period = 'lifetime' and window_kind = 'rolling')`,
    )
    .addCheckConstraint('budgets_one_model_scope', sql`model_group is null or models is null`)
    .execute();
  await sql`create index budgets_user_idx on budgets (user_id)`.execute(db);

  await sql`alter table charges add column started_at timestamptz, add column model text`.execute(db);
  await sql`update charges c set started_at = l.started_at, model = l.model
    from request_logs l where l.request_id = c.request_id`.execute(db);
  await sql`update charges set started_at = created_at where started_at is null`.execute(db);
  await sql`alter table charges alter column started_at set not null, alter column started_at set default now()`.execute(
    db,
  );
  await sql`create index charges_user_started_idx on charges (user_id, started_at)`.execute(db);
}

export async function down(db: Db): Promise<void> {
  await sql`drop index if exists charges_user_started_idx`.execute(db);
  await sql`alter table charges drop column started_at, drop column model`.execute(db);
  await db.schema.dropTable('budgets').ifExists().execute();
}
