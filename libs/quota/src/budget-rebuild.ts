import { type Kysely } from 'kysely';
import { budgetSpendByBucket, budgetsOfUsers, type Database } from '#libs/db';
import { type RedisKeys } from '#libs/redis';
import { budgetWindow } from './budget-window.js';
import {
  budgetCounters,
  budgetModels,
  budgetOfRow,
  type Budget,
  type BudgetCounter,
  type ModelGroups,
} from './budgets.js';

/** A budget's charged nanocredits per bucket of its window at `nowMs`, from the `charges` ledger. */
export function budgetSpend(
  db: Kysely<Database>,
  userId: string,
  b: Budget,
  groups: ModelGroups,
  nowMs: number,
): Promise<Map<number, bigint>> {
  const w = budgetWindow(b, nowMs);
  return budgetSpendByBucket(db, {
    userId,
    keyId: b.keyId,
    models: budgetModels(b, groups),
    fromMs: w.buckets[0]!,
    toMs: w.endMs,
    bucketMs: w.bucketMs,
  });
}

/**
 * The durable spend counters of these users' budget windows at `nowMs`, per user: what a rebuild
 * writes before adding the charges still pending. Run it in the transaction holding the users'
 * balance locks, so no charge of theirs commits in between (see rebuildQuotas).
 */
export async function durableBudgetCounters(
  trx: Kysely<Database>,
  keys: RedisKeys,
  userIds: readonly string[],
  groups: ModelGroups,
  nowMs: number,
): Promise<Map<string, BudgetCounter[]>> {
  const out = new Map<string, BudgetCounter[]>();
  for (const row of await budgetsOfUsers(trx, userIds)) {
    const b = budgetOfRow(row);
    const spend = await budgetSpend(trx, row.user_id, b, groups, nowMs);
    const counters = out.get(row.user_id) ?? [];
    counters.push(...budgetCounters(keys, row.user_id, b, spend, nowMs));
    out.set(row.user_id, counters);
  }
  return out;
}
