import { type Kysely, sql } from 'kysely';
import { type Database } from './database.js';

/** A user's durable quota state: balance and spend of the user and of each of its keys. */
export interface DurableQuota {
  readonly userId: string;
  readonly balanceNanos: bigint;
  /** Nanocredits charged so far to each key of the user (api_keys.spent_nanos). */
  readonly keySpent: ReadonlyMap<string, bigint>;
}

/**
 * Reads the durable quota of these users and locks their balance rows until the caller's
 * transaction ends. While they are locked no charge of theirs can commit (settling a charge
 * updates the same row), so the set of settled charges is frozen: what reconciliation relies on.
 * Users without a balance row get one at zero first (so there is a row to lock); unknown user
 * ids are left out of the result. Rows are locked in user id order, as charge batches do.
 */
export async function lockDurableQuota(
  trx: Kysely<Database>,
  userIds: readonly string[],
): Promise<Map<string, DurableQuota>> {
  const out = new Map<string, DurableQuota>();
  if (userIds.length === 0) return out;
  const ids = [...new Set(userIds)].sort();
  await trx
    .insertInto('quota_balances')
    .columns(['user_id'])
    .expression((eb) => eb.selectFrom('users').select('id').where('id', 'in', ids).orderBy('id'))
    .onConflict((oc) => oc.column('user_id').doNothing())
    .execute();
  const balances = await trx
    .selectFrom('quota_balances')
    .select(['user_id', 'balance_nanos'])
    .where('user_id', 'in', ids)
    .orderBy('user_id')
    .forUpdate()
    .execute();
  const keys = await trx
    .selectFrom('api_keys')
    .select(['id', 'user_id', 'spent_nanos'])
    .where('user_id', 'in', ids)
    // A team key's spend belongs to its team's copy (lockDurableTeamQuota).
    .where('team_id', 'is', null)
    .execute();
  const spentByUser = new Map<string, Map<string, bigint>>();
  for (const k of keys) {
    let m = spentByUser.get(k.user_id);
    if (!m) spentByUser.set(k.user_id, (m = new Map()));
    m.set(k.id, BigInt(k.spent_nanos));
  }
  for (const b of balances) {
    out.set(b.user_id, {
      userId: b.user_id,
      balanceNanos: BigInt(b.balance_nanos),
      keySpent: spentByUser.get(b.user_id) ?? new Map(),
    });
  }
  return out;
}

/** One page of user ids with a balance row, in id order after `afterId` (reconciliation sweeps). */
export async function pageQuotaUserIds(
  db: Kysely<Database>,
  afterId: string | null,
  limit: number,
): Promise<string[]> {
  let q = db.selectFrom('quota_balances').select('user_id').orderBy('user_id').limit(limit);
  if (afterId !== null) q = q.where('user_id', '>', afterId);
  return (await q.execute()).map((r) => r.user_id);
}

/**
 * Ledger sums of a user (grants - its own charges, not its teams'), to audit the stored balance
 * against. The charges are those kept plus the daily totals of those retention retired.
 */
export async function ledgerBalance(db: Kysely<Database>, userId: string): Promise<bigint> {
  const { rows } = await sql<{ total: string }>`
    select (coalesce((select sum(amount_nanos) from quota_grants where user_id = ${userId}), 0)
          - coalesce((select sum(amount_nanos) from charges where user_id = ${userId} and team_id is null), 0)
          - coalesce((select sum(amount_nanos) from charge_daily_totals where user_id = ${userId} and team_id is null), 0))::text as total`.execute(
    db,
  );
  return BigInt(rows[0]?.total ?? '0');
}

/** An account's durable quota as lockAndLoadQuota reads it. */
export interface LoadedQuota extends DurableQuota {
  readonly team: boolean;
  /** Whether any budget counts in the account (its counters need reading: durableBudgetCounters). */
  readonly hasBudgets: boolean;
}

/**
 * A cold account's load, in one statement for any number of accounts (`quota_lock_accounts`,
 * migration 0023): the balance rows locked (FOR UPDATE, in id order, users before teams) until
 * the caller's transaction ends, as lockDurableQuota and lockDurableTeamQuota lock them, a missing
 * row inserted at zero first; then, in a snapshot taken after the locks, each account's key
 * spends and whether budgets count in it. A statement that waited for a lock reads the other
 * tables as they were before the wait: the function's second statement is what keeps the key
 * spends in step with the balance. An account left out of the result is unknown, or its row was
 * inserted by another transaction while this one ran (the statement cannot see it, and waited for
 * that transaction): lockAndLoadQuotaAll asks again for those.
 */
export async function lockAndLoadQuota(
  trx: Kysely<Database>,
  userIds: readonly string[],
  teamIds: readonly string[],
): Promise<LoadedQuota[]> {
  const users = [...new Set(userIds)].sort();
  const teams = [...new Set(teamIds)].sort();
  if (users.length === 0 && teams.length === 0) return [];
  const { rows } = await sql<{
    account_id: string;
    is_team: boolean;
    balance_nanos: string;
    key_spent: Record<string, string>;
    has_budgets: boolean;
  }>`select * from quota_lock_accounts(${users}::uuid[], ${teams}::uuid[])`.execute(trx);
  return rows.map((r) => ({
    userId: r.account_id,
    team: r.is_team,
    balanceNanos: BigInt(r.balance_nanos),
    keySpent: new Map(Object.entries(r.key_spent).map(([id, spent]) => [id, BigInt(spent)])),
    hasBudgets: r.has_budgets,
  }));
}

/**
 * lockAndLoadQuota, asked once more for the accounts the first call left out: by then the
 * transactions that inserted their rows have committed (the first call waited for them), so the
 * second sees and locks those rows. Accounts still left out are unknown.
 */
export async function lockAndLoadQuotaAll(
  trx: Kysely<Database>,
  userIds: readonly string[],
  teamIds: readonly string[],
): Promise<LoadedQuota[]> {
  const loaded = await lockAndLoadQuota(trx, userIds, teamIds);
  const found = new Set(loaded.map((q) => `${q.team}:${q.userId}`));
  const users = userIds.filter((id) => !found.has(`false:${id}`));
  const teams = teamIds.filter((id) => !found.has(`true:${id}`));
  if (users.length === 0 && teams.length === 0) return loaded;
  return [...loaded, ...(await lockAndLoadQuota(trx, users, teams))];
}
