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
