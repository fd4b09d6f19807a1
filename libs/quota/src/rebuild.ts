import { type Kysely } from 'kysely';
import { type Database, type LoadedQuota, lockAndLoadQuotaAll, settledRequestIds } from '#libs/db';
import { type RedisClient, type RedisKeys } from '#libs/redis';
import { accountOfSlot, accountSlot } from './accounts.js';
import { durableBudgetCounters } from './budget-rebuild.js';
import { type BudgetCounter, type ModelGroups } from './budgets.js';
import { REBUILD_THEN_LEASE, REBUILD_THEN_LEASE_MAX_ARGS } from './leases.js';
import { REBUILD, runScript } from './scripts.js';

/**
 * What the quota functions need: the Postgres handle (the truth), the Redis client holding the
 * edge's fast copy, and the key builders of this deployment's prefix.
 */
export interface QuotaDeps {
  readonly db: Kysely<Database>;
  readonly redis: RedisClient;
  readonly keys: RedisKeys;
}

/**
 * `seed`: write only when no balance is loaded (an edge's cache miss); `refresh`: only when one
 * is (the periodic sweep leaves cold users cold); `force`: always (on-demand reconciliation).
 */
export type RebuildMode = 'seed' | 'refresh' | 'force';

/**
 * A charge the edge debited but whose log has not reached Postgres after this long is taken as
 * lost (an edge died holding it in its buffer): Postgres never charged it, so neither does Redis.
 */
export const DEFAULT_PENDING_MAX_AGE_MS = 24 * 60 * 60 * 1000;

export interface RebuildOptions {
  readonly mode: RebuildMode;
  readonly pendingMaxAgeMs?: number;
  readonly now?: () => number;
  /** The config's groups, for budgets counting a group's models (`modelGroupsOf(config)`). */
  readonly modelGroups?: ModelGroups;
  /**
   * Called for each account as soon as its Redis copy is written (or found loaded), before the
   * transaction commits: the copy is right from then on, and a cold request need not wait for the
   * COMMIT (the locks only had to last until the script ran).
   */
  readonly onLoaded?: (slot: string, result: RebuildResult, leaseReply?: unknown) => void;
  /**
   * Per account, a lease to grant in the same Redis call as the load (REBUILD_THEN_LEASE): its
   * KEYS and ARGV as leaseCall builds them. Its reply goes to `onLoaded`; absent when the load was
   * too large to carry it (then the caller asks for the lease itself).
   */
  readonly leases?: ReadonlyMap<
    string,
    { readonly keys: readonly string[]; readonly args: ReadonlyArray<string | number> }
  >;
}

/** Per account: the balance Redis holds afterwards (null when none is loaded), and whether it was written. */
export interface RebuildResult {
  readonly balanceNanos: bigint | null;
  readonly written: boolean;
}

/**
 * Rebuilds the Redis copy of these accounts' quota from Postgres (`userIds`: account slots, a
 * user's id or a team's `team:<id>`, see accounts.ts): balance = durable balance minus the
 * charges Redis holds as pending that Postgres has not settled yet (the same for each key's spend
 * and each budget counter of the current windows, from `charges` by the requests' start).
 *
 * Why it neither hands money back nor counts it twice: the accounts' balance rows are locked
 * (SELECT ... FOR UPDATE) from before Postgres is asked which pending charges it holds until after
 * the Redis script ran, and a charge settles by updating that same row, so no charge of these
 * accounts commits in between (a team's charges update its `team_balances` row, locked alike). One
 * statement locks the rows and then reads the key spends and whether budgets count, in a snapshot
 * after the locks (lockAndLoadQuotaAll). The pending ids are only read once the rows are locked:
 * by the script itself, which writes nothing for an account holding any and returns them instead
 * (most cold accounts hold none, and so cost no Redis read beforehand); Postgres is then asked
 * which of those it settled, and the script runs again with the answer. Read before the lock, a
 * charge whose edge debit landed after that read and whose row committed before the lock was in
 * the durable balance and still pending in Redis: counted twice (the concurrent reconciliation
 * test caught one such charge). Only accounts with budgets read their windows' spends in more.
 * The script itself is atomic with every edge's admit and settle. Unknown accounts are left out
 * of the result, which is keyed by slot.
 */
export async function rebuildQuotas(
  deps: QuotaDeps,
  userIds: readonly string[],
  opts: RebuildOptions,
): Promise<Map<string, RebuildResult>> {
  const results = new Map<string, RebuildResult>();
  if (userIds.length === 0) return results;
  await deps.db.transaction().execute(async (trx) => {
    const durable = await lockAll(trx, userIds);
    const now = (opts.now ?? Date.now)();
    // Most accounts have no budget: their counters cost no statement at all.
    const withBudgets = userIds.filter((slot) => durable.get(slot)?.hasBudgets === true);
    const counters =
      withBudgets.length === 0
        ? new Map<string, never[]>()
        : await durableBudgetCounters(trx, deps.keys, withBudgets, opts.modelGroups ?? new Map(), now);
    const load = (slot: string, settled: readonly string[] | null) =>
      loadOne(
        deps,
        opts,
        { slot, quota: durable.get(slot)!, budgets: counters.get(slot) ?? [], settled, now },
        results,
      );
    const known = userIds.filter((slot) => durable.has(slot));
    const asked = await Promise.all(known.map((slot) => load(slot, null)));
    // Accounts holding pending ids: which did Postgres settle? Then their load again, with that.
    const pending = new Map(known.flatMap((slot, i) => (asked[i] ? [[slot, asked[i]] as const] : [])));
    if (pending.size === 0) return;
    const settled = await settledRequestIds(trx, [...pending.values()].flat());
    await Promise.all(
      [...pending].map(async ([slot, ids]) => {
        if (
          (await load(
            slot,
            ids.filter((id) => settled.has(id)),
          )) !== null
        ) {
          throw new Error(`quota load of ${slot}: pending ids asked about twice`);
        }
      }),
    );
  });
  return results;
}

interface AccountLoad {
  readonly slot: string;
  readonly quota: LoadedQuota;
  readonly budgets: readonly BudgetCounter[];
  /** The pending ids Postgres settled, of those the first call returned; null: none asked yet. */
  readonly settled: readonly string[] | null;
  readonly now: number;
}

/**
 * One account's script (with its first lease when one is asked for and fits): the result goes to
 * `results` and `onLoaded`. Returns the account's pending ids when the script found some it was
 * not told about (it wrote nothing), null otherwise.
 */
async function loadOne(
  deps: QuotaDeps,
  opts: RebuildOptions,
  a: AccountLoad,
  results: Map<string, RebuildResult>,
): Promise<string[] | null> {
  const { slot, quota, budgets, settled } = a;
  const spends = [...quota.keySpent].flatMap(([keyId, spent]) => [keyId, spent.toString()]);
  const rebuildKeys = [
    deps.keys.quotaBalance(slot),
    deps.keys.quotaKeySpent(slot),
    deps.keys.quotaPending(slot),
    ...budgets.map((c) => c.key),
  ];
  const rebuildArgs = [
    opts.mode,
    quota.balanceNanos.toString(),
    a.now,
    opts.pendingMaxAgeMs ?? DEFAULT_PENDING_MAX_AGE_MS,
    ...(settled === null ? [-1] : [settled.length, ...settled]),
    quota.keySpent.size,
    ...spends,
    ...budgets.flatMap((c) => [c.token, c.nanos.toString(), c.ttlSeconds]),
  ];
  const lease = opts.leases?.get(slot);
  let reply: [number, string | string[] | null];
  let leaseReply: unknown;
  if (lease !== undefined && rebuildArgs.length <= REBUILD_THEN_LEASE_MAX_ARGS) {
    [reply, leaseReply] = (await runScript(
      deps.redis,
      REBUILD_THEN_LEASE,
      [...rebuildKeys, ...lease.keys],
      [rebuildKeys.length, rebuildArgs.length, ...rebuildArgs, ...lease.args],
    )) as [[number, string | string[] | null], unknown];
  } else {
    reply = (await runScript(deps.redis, REBUILD, rebuildKeys, rebuildArgs)) as [number, string | null];
  }
  if (reply[0] === 2) return reply[1] as string[];
  const balance = reply[1] as string | null;
  const result = { written: reply[0] === 1, balanceNanos: balance === null ? null : BigInt(balance) };
  results.set(slot, result);
  opts.onLoaded?.(slot, result, leaseReply);
  return null;
}

/** Every known account's durable quota, its balance row locked, by slot (lockAndLoadQuotaAll). */
async function lockAll(trx: Kysely<Database>, slots: readonly string[]): Promise<Map<string, LoadedQuota>> {
  const users: string[] = [];
  const teams: string[] = [];
  for (const slot of slots) {
    const a = accountOfSlot(slot);
    (a.kind === 'team' ? teams : users).push(a.id);
  }
  const loaded = await lockAndLoadQuotaAll(trx, users, teams);
  return new Map(loaded.map((q) => [q.team ? accountSlot({ kind: 'team', id: q.userId }) : q.userId, q]));
}
