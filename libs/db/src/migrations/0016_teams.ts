import { type Kysely, sql } from 'kysely';

// Frozen once released, like every migration: an untyped handle, no imports from the live schema.
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- kysely's documented migration signature
type Db = Kysely<any>;

/**
 * Teams (issue 24, part 3; docs/teams.md). A team is a second kind of billing account beside a
 * user: a key created for a team (`api_keys.team_id`, fixed at creation) spends the team's
 * credits and counts in the team's budgets, never its member's.
 * - `teams`: name and the config groups its keys may use; `team_members`: who, and who is a team
 *   admin (manages the members' team keys, sees the team's usage).
 * - `team_balances` / `team_grants`: the team's side of the ledger, exactly as `quota_balances` /
 *   `quota_grants` are the user's: balance = sum(grants) - sum(charges of the team).
 * - `charges.team_id`, `request_logs.team_id`: which team paid; null for a user's own spend. A
 *   user's balance and budgets count only charges without a team.
 * - `budgets.team_id`: a budget of every key of a team (`user_id` null then). A budget of one team
 *   key keeps its key's owner in `user_id`, as every key budget does; the key says the team.
 * Teams with keys or charges cannot be deleted (restrict): the ledger must keep who paid.
 */
export async function up(db: Db): Promise<void> {
  await db.schema
    .createTable('teams')
    .addColumn('id', 'uuid', (c) => c.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn('name', 'text', (c) =>
      c
        .notNull()
        .unique()
        .check(sql`length(name) between 1 and 100`),
    )
    .addColumn('groups', sql`text[]`, (c) => c.notNull().defaultTo(sql`'{}'::text[]`))
    .addColumn('created_by', 'uuid', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();

  await db.schema
    .createTable('team_members')
    .addColumn('team_id', 'uuid', (c) => c.notNull().references('teams.id').onDelete('cascade'))
    .addColumn('user_id', 'uuid', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('is_admin', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('added_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addPrimaryKeyConstraint('team_members_pk', ['team_id', 'user_id'])
    .execute();
  await sql`create index team_members_user_idx on team_members (user_id)`.execute(db);

  await db.schema
    .createTable('team_balances')
    .addColumn('team_id', 'uuid', (c) => c.primaryKey().references('teams.id').onDelete('cascade'))
    .addColumn('balance_nanos', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('spent_nanos', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();

  await db.schema
    .createTable('team_grants')
    .addColumn('id', 'bigserial', (c) => c.primaryKey())
    .addColumn('team_id', 'uuid', (c) => c.notNull().references('teams.id').onDelete('cascade'))
    .addColumn('amount_nanos', 'bigint', (c) => c.notNull().check(sql`amount_nanos <> 0`))
    .addColumn('granted_by', 'uuid', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('note', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await sql`create index team_grants_team_created_idx on team_grants (team_id, created_at desc)`.execute(db);

  await sql`alter table api_keys add column team_id uuid references teams (id) on delete restrict`.execute(
    db,
  );
  await sql`create index api_keys_team_idx on api_keys (team_id) where team_id is not null`.execute(db);

  await sql`alter table charges add column team_id uuid references teams (id) on delete restrict`.execute(db);
  await sql`create index charges_team_started_idx on charges (team_id, started_at) where team_id is not null`.execute(
    db,
  );

  // Nullable, no default: no partition is rewritten, older rows read as a user's own spend.
  await sql`alter table request_logs add column team_id uuid`.execute(db);

  await sql`alter table budgets
    add column team_id uuid references teams (id) on delete cascade,
    alter column user_id drop not null,
    add constraint budgets_one_owner check (user_id is not null or team_id is not null)`.execute(db);
  await sql`create index budgets_team_idx on budgets (team_id) where team_id is not null`.execute(db);
}

export async function down(db: Db): Promise<void> {
  await sql`delete from budgets where user_id is null`.execute(db);
  await sql`alter table budgets drop constraint budgets_one_owner, drop column team_id,
    alter column user_id set not null`.execute(db);
  await sql`alter table request_logs drop column team_id`.execute(db);
  await sql`alter table charges drop column team_id`.execute(db);
  await sql`alter table api_keys drop column team_id`.execute(db);
  await db.schema.dropTable('team_grants').ifExists().execute();
  await db.schema.dropTable('team_balances').ifExists().execute();
  await db.schema.dropTable('team_members').ifExists().execute();
  await db.schema.dropTable('teams').ifExists().execute();
}
