import { type Kysely, sql } from 'kysely';
import { type Database } from './database.js';
import { chunk } from './request-logs.repository.js';

export interface ChargeInput {
  readonly requestId: string;
  readonly userId: string;
  readonly keyId: string | null;
  readonly amountNanos: bigint | number | string;
  /** The request's start (ISO; default now) and model: which budget windows the charge counts in. */
  readonly startedAt?: string;
  readonly model?: string | null;
  /** The team that pays (the key's team), or null/absent: the user does (docs/teams.md). */
  readonly teamId?: string | null;
}

/** Seven parameters per row: thousands of rows per statement stay far below Postgres' limit. */
const ROWS_PER_STATEMENT = 10_000;

/**
 * Writes charges to the ledger and settles them, in one statement per batch: rows whose request
 * id is already charged are skipped, and only the newly inserted ones debit the account's balance
 * (the team's for a team charge, else the user's; created at zero if missing) and add to the
 * key's spend. Returns the newly charged request ids.
 * Run it in the same transaction as the request logs.
 */
export async function insertCharges(
  db: Kysely<Database>,
  charges: readonly ChargeInput[],
): Promise<string[]> {
  const charged: string[] = [];
  for (const part of chunk(charges, ROWS_PER_STATEMENT)) {
    const rows = part.map((c) => ({
      request_id: c.requestId,
      user_id: c.userId,
      key_id: c.keyId,
      amount_nanos: String(c.amountNanos),
      started_at: c.startedAt ?? new Date().toISOString(),
      model: c.model ?? null,
      team_id: c.teamId ?? null,
    }));
    const result = await db
      .with('inserted', (qb) =>
        qb
          .insertInto('charges')
          .values(rows)
          .onConflict((oc) => oc.column('request_id').doNothing())
          .returning(['request_id', 'user_id', 'key_id', 'amount_nanos', 'team_id']),
      )
      .with('debits', (qb) =>
        qb
          .insertInto('quota_balances')
          .columns(['user_id', 'balance_nanos', 'spent_nanos'])
          .expression(
            sql`select user_id, -sum(amount_nanos)::bigint, sum(amount_nanos)::bigint
                from inserted where team_id is null group by user_id order by user_id`,
          )
          .onConflict((oc) =>
            oc.column('user_id').doUpdateSet({
              balance_nanos: sql`quota_balances.balance_nanos + excluded.balance_nanos`,
              spent_nanos: sql`quota_balances.spent_nanos + excluded.spent_nanos`,
              updated_at: sql`now()`,
            }),
          ),
      )
      .with('team_debits', (qb) =>
        qb
          .insertInto('team_balances')
          .columns(['team_id', 'balance_nanos', 'spent_nanos'])
          .expression(
            sql`select team_id, -sum(amount_nanos)::bigint, sum(amount_nanos)::bigint
                from inserted where team_id is not null group by team_id order by team_id`,
          )
          .onConflict((oc) =>
            oc.column('team_id').doUpdateSet({
              balance_nanos: sql`team_balances.balance_nanos + excluded.balance_nanos`,
              spent_nanos: sql`team_balances.spent_nanos + excluded.spent_nanos`,
              updated_at: sql`now()`,
            }),
          ),
      )
      .with('key_spend', (qb) =>
        qb
          .updateTable('api_keys')
          .from(
            sql<{ key_id: string; total: string }>`(select key_id, sum(amount_nanos)::bigint as total
              from inserted where key_id is not null group by key_id)`.as('spend'),
          )
          .set({ spent_nanos: sql`api_keys.spent_nanos + spend.total` })
          .whereRef('api_keys.id', '=', 'spend.key_id'),
      )
      .selectFrom('inserted')
      .select('request_id')
      .execute();
    charged.push(...result.map((r) => r.request_id));
  }
  return charged;
}

/**
 * Which of these request ids are charged (settled) in the ledger. Reconciliation asks this for the
 * charges Redis still holds as pending, under the users' balance locks (see lockDurableQuota).
 */
export async function settledRequestIds(
  db: Kysely<Database>,
  requestIds: readonly string[],
): Promise<Set<string>> {
  const settled = new Set<string>();
  for (const part of chunk(requestIds, ROWS_PER_STATEMENT)) {
    const rows = await db
      .selectFrom('charges')
      .select('request_id')
      .where('request_id', 'in', part)
      .execute();
    for (const r of rows) settled.add(r.request_id);
  }
  return settled;
}

const DAY_MS = 86_400_000;
const dayOf = (ms: number): string => new Date(ms).toISOString().slice(0, 10);

/** The first instant of the oldest UTC day that still has charges, or null when none are kept. */
export async function oldestChargeDay(db: Kysely<Database>): Promise<Date | null> {
  const row = await db
    .selectFrom('charges')
    .select('started_at')
    .orderBy('started_at')
    .limit(1)
    .executeTakeFirst();
  return row ? new Date(Math.floor(row.started_at.getTime() / DAY_MS) * DAY_MS) : null;
}

/**
 * Retention of the ledger: deletes the charges of the UTC day starting at `day` and adds them to
 * `charge_daily_totals` (per account, key and model) in the same statement, so every sum over
 * totals + charges is the same before and after, at every instant. Idempotent: run twice, or by
 * two workers at once, a day's charges are deleted (and counted) once. Returns how many went.
 */
export async function retireChargesOfDay(db: Kysely<Database>, day: Date): Promise<number> {
  const from = new Date(Math.floor(day.getTime() / DAY_MS) * DAY_MS);
  const to = new Date(from.getTime() + DAY_MS);
  const { rows } = await sql<{ n: string }>`
    with gone as (
      delete from charges
      where started_at >= ${from.toISOString()}::timestamptz and started_at < ${to.toISOString()}::timestamptz
      returning user_id, team_id, key_id, model, amount_nanos
    ), totals as (
      insert into charge_daily_totals (day, user_id, team_id, key_id, model, amount_nanos, charges)
      select ${dayOf(from.getTime())}::date, user_id, team_id, key_id, model, sum(amount_nanos), count(*)
      from gone group by 2, 3, 4, 5 order by 2, 3, 4, 5
      on conflict on constraint charge_daily_totals_key do update set
        amount_nanos = charge_daily_totals.amount_nanos + excluded.amount_nanos,
        charges = charge_daily_totals.charges + excluded.charges
    )
    select count(*)::text as n from gone`.execute(db);
  return Number(rows[0]?.n ?? 0);
}

/** Which retired charges a sum takes: an account's, a key's, some models', whole days of a window. */
export interface RetiredChargesQuery {
  /** A user's own charges (no team), or with `teamId` the team's (userId ignored). */
  readonly userId: string | null;
  readonly teamId?: string | null;
  /** Only this key's charges (whatever the account), or null. */
  readonly keyId?: string | null;
  /** Only charges of these models, or null: every model. */
  readonly models?: readonly string[] | null;
  /** The whole UTC days inside [fromMs, toMs) count; toMs null = open. */
  readonly fromMs?: number;
  readonly toMs?: number | null;
}

/**
 * The sum of the retired charges (charge_daily_totals) a query selects: what a sum over
 * `charges` must add to stay the sum of every charge ever made once retention has run.
 */
export async function retiredChargesSum(db: Kysely<Database>, q: RetiredChargesQuery): Promise<bigint> {
  if (q.models != null && q.models.length === 0) return 0n;
  let query = db
    .selectFrom('charge_daily_totals')
    .select(sql<string>`coalesce(sum(amount_nanos), 0)::text`.as('total'));
  if (q.keyId != null) query = query.where('key_id', '=', q.keyId);
  else if (q.teamId != null) query = query.where('team_id', '=', q.teamId);
  else if (q.userId !== null) query = query.where('user_id', '=', q.userId).where('team_id', 'is', null);
  else return 0n;
  if (q.fromMs !== undefined && q.fromMs > 0)
    query = query.where(sql`day`, '>=', sql`${dayOf(Math.ceil(q.fromMs / DAY_MS) * DAY_MS)}::date`);
  if (q.toMs != null)
    query = query.where(sql`day`, '<', sql`${dayOf(Math.floor(q.toMs / DAY_MS) * DAY_MS)}::date`);
  if (q.models != null) query = query.where('model', 'in', [...q.models]);
  const row = await query.executeTakeFirst();
  return BigInt(row?.total ?? '0');
}
