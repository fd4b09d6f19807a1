import { type Kysely, sql } from 'kysely';

// Frozen once released, like every migration: an untyped handle, no imports from the live schema.
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- kysely's documented migration signature
type Db = Kysely<any>;

/**
 * Charges retention (issue 40). `charges` kept one row per billed request forever. The worker now
 * deletes charges older than the retention one UTC day at a time, and in the same statement adds
 * them to `charge_daily_totals` (per day, account, key and model), kept forever: balances, ledger
 * audits and lifetime budgets read the totals plus the charges still kept, so no sum changes when
 * a day moves from one to the other. `charges` stays one table keyed by request id alone (no
 * partitioning: its primary key would have to include the start time); `charges_started_idx`
 * finds the oldest day and the rows of a day to retire.
 *
 * The key is unique with nulls not distinct (Postgres 15+): a user's charges without a key or a
 * model have one row per day. Users and teams are referenced as `charges` references them.
 */
export async function up(db: Db): Promise<void> {
  await sql`create table charge_daily_totals (
    day date not null,
    user_id uuid not null references users (id),
    team_id uuid references teams (id) on delete restrict,
    key_id uuid,
    model text,
    amount_nanos bigint not null check (amount_nanos >= 0),
    charges bigint not null,
    constraint charge_daily_totals_key unique nulls not distinct (day, user_id, team_id, key_id, model)
  )`.execute(db);
  await sql`create index charge_daily_totals_user_idx on charge_daily_totals (user_id) where team_id is null`.execute(
    db,
  );
  await sql`create index charge_daily_totals_team_idx on charge_daily_totals (team_id) where team_id is not null`.execute(
    db,
  );
  await sql`create index charge_daily_totals_key_idx on charge_daily_totals (key_id) where key_id is not null`.execute(
    db,
  );
  await sql`create index charges_started_idx on charges (started_at)`.execute(db);
}

/** Refused once a day was retired: the totals are the only record of those charges. */
export async function down(db: Db): Promise<void> {
  const { rows } = await sql<{ n: string }>`select count(*) as n from charge_daily_totals`.execute(db);
  if (Number(rows[0]?.n ?? 0) > 0)
    throw new Error(
      'charge_daily_totals holds retired charges: dropping it would lose them from every balance',
    );
  await sql`drop index charges_started_idx`.execute(db);
  await sql`drop table charge_daily_totals`.execute(db);
}
