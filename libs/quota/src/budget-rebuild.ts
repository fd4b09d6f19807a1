import { type Kysely } from 'kysely';
import { type BudgetRow, budgetSpendByBucket, budgetsOfTeams, budgetsOfUsers, type Database } from '#libs/db';
import { type RedisKeys } from '#libs/redis';
import { accountOfSlot, accountSlot } from './accounts.js';
import { budgetWindow } from './budget-window.js';
import {
  budgetCounters,
  budgetModels,
  budgetOfRow,
  type Budget,
  type BudgetCounter,
  type ModelGroups,
} from './budgets.js';

/**
 * The slot of the account a budget row counts in, for its display: a team's budget the team's,
 * a user's the user's. (A key budget's spend is its key's charges whatever the slot says.)
 */
export function budgetRowSlot(row: Pick<BudgetRow, 'user_id' | 'team_id'>): string {
  return row.team_id !== null ? accountSlot({ kind: 'team', id: row.team_id }) : (row.user_id ?? '');
}

/**
 * A budget's charged nanocredits per bucket of its window at `nowMs`, from the `charges` ledger.
 * `slot`: the account (a user's id or `team:<id>`, see accounts.ts) whose charges a budget over
 * all its keys counts.
 */
export function budgetSpend(
  db: Kysely<Database>,
  slot: string,
  b: Budget,
  groups: ModelGroups,
  nowMs: number,
): Promise<Map<number, bigint>> {
  const w = budgetWindow(b, nowMs);
  const account = accountOfSlot(slot);
  return budgetSpendByBucket(db, {
    userId: account.kind === 'user' ? account.id : null,
    teamId: account.kind === 'team' ? account.id : null,
    keyId: b.keyId,
    models: budgetModels(b, groups),
    fromMs: w.buckets[0]!,
    toMs: w.endMs,
    bucketMs: w.bucketMs,
  });
}

/**
 * The durable spend counters of these accounts' budget windows at `nowMs`, per account slot: what
 * a rebuild writes before adding the charges still pending. Run it in the transaction holding the
 * accounts' balance locks, so no charge of theirs commits in between (see rebuildQuotas).
 */
export async function durableBudgetCounters(
  trx: Kysely<Database>,
  keys: RedisKeys,
  slots: readonly string[],
  groups: ModelGroups,
  nowMs: number,
): Promise<Map<string, BudgetCounter[]>> {
  const userIds: string[] = [];
  const teamIds: string[] = [];
  for (const slot of slots) {
    const a = accountOfSlot(slot);
    (a.kind === 'team' ? teamIds : userIds).push(a.id);
  }
  const rows: Array<{ slot: string; row: BudgetRow }> = [
    ...(await budgetsOfUsers(trx, userIds)).map((row) => ({ slot: row.user_id!, row })),
    ...(await budgetsOfTeams(trx, teamIds)).map((row) => ({
      slot: accountSlot({ kind: 'team', id: row.account_team_id }),
      row,
    })),
  ];
  const out = new Map<string, BudgetCounter[]>();
  for (const { slot, row } of rows) {
    const b = budgetOfRow(row);
    const spend = await budgetSpend(trx, slot, b, groups, nowMs);
    const counters = out.get(slot) ?? [];
    counters.push(...budgetCounters(keys, slot, b, spend, nowMs));
    out.set(slot, counters);
  }
  return out;
}
