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

/** An account's durable quota as durableQuotaDetails reads it. */
export interface LoadedQuota extends DurableQuota {
  readonly team: boolean;
  /** Whether any budget counts in the account (its counters need reading: durableBudgetCounters). */
  readonly hasBudgets: boolean;
}

/** An account's balance row, locked by lockDurableBalances. */
export interface LockedBalance {
  /** The user's id, or the team's for a team account. */
  readonly id: string;
  readonly team: boolean;
  readonly balanceNanos: bigint;
}

/**
 * A cold account's load, step one (one statement for any number of accounts): the balance rows
 * locked (FOR UPDATE, in id order, users before teams) until the caller's transaction ends, as
 * lockDurableQuota and lockDurableTeamQuota lock them; a missing row is inserted at zero and,
 * inserted by this transaction, is locked as well. An account left out of the result (unknown, or
 * whose row another transaction inserted while this one ran, which the statement cannot see) is
 * for the caller to lock the long way.
 */
export async function lockDurableBalances(
  trx: Kysely<Database>,
  userIds: readonly string[],
  teamIds: readonly string[],
): Promise<LockedBalance[]> {
  const users = [...new Set(userIds)].sort();
  const teams = [...new Set(teamIds)].sort();
  if (users.length === 0 && teams.length === 0) return [];
  const { rows } = await sql<{ id: string; team: boolean; balance_nanos: string }>`
    with u_new as (
      insert into quota_balances (user_id)
      select id from users where id = any(${users}::uuid[]) order by id
      on conflict (user_id) do nothing returning user_id as id, balance_nanos
    ), u_old as (
      select user_id as id, balance_nanos from quota_balances
      where user_id = any(${users}::uuid[]) order by user_id for update
    ), t_new as (
      insert into team_balances (team_id)
      select id from teams where id = any(${teams}::uuid[]) order by id
      on conflict (team_id) do nothing returning team_id as id, balance_nanos
    ), t_old as (
      select team_id as id, balance_nanos from team_balances
      where team_id = any(${teams}::uuid[]) order by team_id for update
    )
    select id, false as team, balance_nanos::text as balance_nanos from u_old
    union all select id, false, balance_nanos::text from u_new
    union all select id, true, balance_nanos::text from t_old
    union all select id, true, balance_nanos::text from t_new`.execute(trx);
  return rows.map((r) => ({ id: r.id, team: r.team, balanceNanos: BigInt(r.balance_nanos) }));
}

/**
 * Step two, once every row is locked: each account's key spends and whether budgets count, and
 * which of `pendingRequestIds` Postgres settled, in one statement. Its snapshot is taken after the
 * locks, so it agrees with the balances: a charge commits by updating a locked row, and a statement
 * that waited on a lock would read the rest as it was before the wait (why this is not step one).
 */
export async function durableQuotaDetails(
  trx: Kysely<Database>,
  locked: readonly LockedBalance[],
  pendingRequestIds: readonly string[],
): Promise<{ accounts: LoadedQuota[]; settled: Set<string> }> {
  const { rows } = await sql<{
    id: string | null;
    team: boolean;
    key_spent: Record<string, string>;
    has_budgets: boolean;
    settled: string[];
  }>`
    with a as (
      select * from unnest(${locked.map((l) => l.id)}::uuid[], ${locked.map((l) => l.team)}::bool[]) as a(id, team)
    ), settled as (
      select coalesce(array_agg(request_id), '{}') as ids from charges
      where request_id = any(${[...pendingRequestIds]}::text[])
    )
    select a.id, a.team,
      coalesce((select json_object_agg(k.id, k.spent_nanos::text) from api_keys k
        where (a.team and k.team_id = a.id) or (not a.team and k.user_id = a.id and k.team_id is null)),
        '{}'::json) as key_spent,
      (case when a.team then exists (
          select 1 from budgets b left join api_keys k on k.id = b.key_id
          where coalesce(b.team_id, k.team_id) = a.id)
        else exists (
          select 1 from budgets b left join api_keys k on k.id = b.key_id
          where b.user_id = a.id and b.team_id is null and (b.key_id is null or k.team_id is null))
        end) as has_budgets,
      s.ids as settled
    from settled s left join a on true`.execute(trx);
  const balances = new Map(locked.map((l) => [`${l.team}:${l.id}`, l.balanceNanos]));
  const accounts: LoadedQuota[] = [];
  for (const r of rows) {
    if (r.id === null) continue;
    accounts.push({
      userId: r.id,
      team: r.team,
      balanceNanos: balances.get(`${r.team}:${r.id}`)!,
      keySpent: new Map(Object.entries(r.key_spent).map(([id, spent]) => [id, BigInt(spent)])),
      hasBudgets: r.has_budgets,
    });
  }
  return { accounts, settled: new Set(rows[0]?.settled ?? []) };
}
