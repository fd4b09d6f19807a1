import { type GatewayConfig } from '#libs/config';
import { type BudgetRow } from '#libs/db';
import { type RedisKeys } from '#libs/redis';
import {
  type BudgetPeriod,
  type BudgetWindowKind,
  bucketOf,
  bucketTtlSeconds,
  budgetWindow,
} from './budget-window.js';

/**
 * A budget as edges cache it in the key record and the scripts check it (JSON-safe: the limit is
 * int8 nanocredits as a decimal string). Postgres `budgets` rows are the truth.
 */
export interface Budget {
  readonly id: string;
  /** The key it limits, or null: every key of the user together. */
  readonly keyId: string | null;
  readonly period: BudgetPeriod;
  readonly window: BudgetWindowKind;
  readonly limitNanos: string;
  /** Counts only the models of this config group, or of `models`; both null = every model. */
  readonly modelGroup: string | null;
  readonly models: readonly string[] | null;
  /** Set on a team's budget (over all its keys, docs/teams.md); absent on older cached records. */
  readonly teamId?: string | null;
}

/** Config group name -> its model ids. */
export type ModelGroups = ReadonlyMap<string, ReadonlySet<string>>;

export function modelGroupsOf(config: Pick<GatewayConfig, 'groups'>): ModelGroups {
  return new Map(Object.entries(config.groups).map(([name, ids]) => [name, new Set(ids)]));
}

export function budgetOfRow(row: BudgetRow): Budget {
  return {
    id: row.id,
    keyId: row.key_id,
    period: row.period,
    window: row.window_kind,
    limitNanos: String(row.limit_nanos),
    modelGroup: row.model_group,
    models: row.models,
    ...(row.team_id === null ? {} : { teamId: row.team_id }),
  };
}

/** The models a budget counts, or null for all. A group the config no longer has counts none. */
export function budgetModels(b: Budget, groups: ModelGroups): readonly string[] | null {
  if (b.modelGroup !== null) return [...(groups.get(b.modelGroup) ?? [])];
  return b.models;
}

/** The budgets a request of `keyId` for `model` must respect (its key's and its owner's). */
export function budgetsFor(
  budgets: readonly Budget[] | undefined,
  keyId: string,
  model: string,
  groups: ModelGroups,
): readonly Budget[] {
  if (!budgets || budgets.length === 0) return [];
  return budgets.filter((b) => {
    if (b.keyId !== null && b.keyId !== keyId) return false;
    if (b.modelGroup !== null) return groups.get(b.modelGroup)?.has(model) ?? false;
    return b.models === null || b.models.includes(model);
  });
}

/** The pending entry's name for a bucket counter, so a rebuild can re-add an unsettled charge. */
const token = (b: Budget, bucket: number): string => `${b.id}@${bucket}`;

/** ADMIT's budget part: every counter of each window (KEYS), then per budget its limit and key count. */
export function budgetAdmitArgs(
  keys: RedisKeys,
  userId: string,
  budgets: readonly Budget[],
  nowMs: number,
): { keys: string[]; args: Array<string | number> } {
  const windows = budgets.map((b) => budgetWindow(b, nowMs));
  return {
    keys: windows.flatMap((w, i) => w.buckets.map((t) => keys.quotaBudgetSpent(userId, budgets[i]!.id, t))),
    args: [budgets.length, ...windows.flatMap((w, i) => [budgets[i]!.limitNanos, w.buckets.length])],
  };
}

/**
 * SETTLE's budget part: the counter of the bucket holding the request's start, per budget (KEYS),
 * the tokens naming them in the pending entry, and each counter's TTL.
 */
export function budgetSettleArgs(
  keys: RedisKeys,
  userId: string,
  budgets: readonly Budget[],
  startedAtMs: number,
  nowMs: number,
): { keys: string[]; tokens: string; ttls: number[] } {
  const buckets = budgets.map((b) => bucketOf(b, startedAtMs));
  return {
    keys: budgets.map((b, i) => keys.quotaBudgetSpent(userId, b.id, buckets[i]!)),
    tokens: budgets.length === 0 ? '' : ';' + budgets.map((b, i) => token(b, buckets[i]!)).join(','),
    ttls: budgets.map((b, i) => bucketTtlSeconds(b, buckets[i]!, nowMs)),
  };
}

/** One counter as a rebuild writes it: key, its token in pending entries, durable value, TTL. */
export interface BudgetCounter {
  readonly key: string;
  readonly token: string;
  readonly nanos: bigint;
  readonly ttlSeconds: number;
}

/** The counters of a budget's current window with their durable values (bucket start -> nanos). */
export function budgetCounters(
  keys: RedisKeys,
  userId: string,
  b: Budget,
  spend: ReadonlyMap<number, bigint>,
  nowMs: number,
): BudgetCounter[] {
  return budgetWindow(b, nowMs).buckets.map((t) => ({
    key: keys.quotaBudgetSpent(userId, b.id, t),
    token: token(b, t),
    nanos: spend.get(t) ?? 0n,
    ttlSeconds: bucketTtlSeconds(b, t, nowMs),
  }));
}
