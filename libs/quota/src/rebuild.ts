import { type Kysely } from 'kysely';
import {
  type Database,
  durableQuotaDetails,
  type LoadedQuota,
  type LockedBalance,
  lockDurableBalances,
  lockDurableQuota,
  lockDurableTeamQuota,
} from '#libs/db';
import { type RedisClient, type RedisKeys } from '#libs/redis';
import { accountOfSlot, accountSlot } from './accounts.js';
import { durableBudgetCounters } from './budget-rebuild.js';
import { type ModelGroups } from './budgets.js';
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
 * Why it neither hands money back nor counts it twice: the users' balance rows are locked
 * (SELECT ... FOR UPDATE) from before Postgres is asked which pending charges it holds until after
 * the Redis script ran, and a charge settles by updating that same row, so no charge of these
 * users commits in between (a team's charges update its `team_balances` row, locked alike). The
 * rows are locked in one statement (lockDurableBalances); the pending ids are read from Redis only
 * once they are, then in one more statement the key spends, whether budgets count and which
 * pending ids Postgres settled (durableQuotaDetails, a snapshot after the locks). Read before
 * the lock, a charge whose edge debit landed after that read and whose row committed before the
 * lock was in the durable balance and still pending in Redis: counted twice (the concurrent
 * reconciliation test caught one such charge). Only accounts with budgets read their windows'
 * spends in more. The script itself is atomic with every edge's admit and settle. Unknown
 * accounts are left out of the result, which is keyed by slot.
 */
export async function rebuildQuotas(
  deps: QuotaDeps,
  userIds: readonly string[],
  opts: RebuildOptions,
): Promise<Map<string, RebuildResult>> {
  const results = new Map<string, RebuildResult>();
  if (userIds.length === 0) return results;
  const maxAge = opts.pendingMaxAgeMs ?? DEFAULT_PENDING_MAX_AGE_MS;
  await deps.db.transaction().execute(async (trx) => {
    const locked = await lockAll(trx, userIds);
    // Only now: from the lock to the script no charge of these accounts commits (see above).
    const pendingIds = await Promise.all(userIds.map((u) => deps.redis.hkeys(deps.keys.quotaPending(u))));
    const { accounts, settled } = await durableQuotaDetails(trx, locked, pendingIds.flat());
    const durable = new Map<string, LoadedQuota>(
      accounts.map((q) => [q.team ? accountSlot({ kind: 'team', id: q.userId }) : q.userId, q]),
    );
    const now = (opts.now ?? Date.now)();
    // Most accounts have no budget: their counters cost no statement at all.
    const withBudgets = userIds.filter((slot) => {
      const q = durable.get(slot);
      return q !== undefined && q.hasBudgets !== false;
    });
    const counters =
      withBudgets.length === 0
        ? new Map<string, never[]>()
        : await durableBudgetCounters(trx, deps.keys, withBudgets, opts.modelGroups ?? new Map(), now);
    await Promise.all(
      userIds.map(async (userId, i) => {
        const quota = durable.get(userId);
        if (!quota) return;
        const settledHere = pendingIds[i]!.filter((id) => settled.has(id));
        const spends = [...quota.keySpent].flatMap(([keyId, spent]) => [keyId, spent.toString()]);
        const budgets = counters.get(userId) ?? [];
        const rebuildKeys = [
          deps.keys.quotaBalance(userId),
          deps.keys.quotaKeySpent(userId),
          deps.keys.quotaPending(userId),
          ...budgets.map((c) => c.key),
        ];
        const rebuildArgs = [
          opts.mode,
          quota.balanceNanos.toString(),
          now,
          maxAge,
          settledHere.length,
          ...settledHere,
          quota.keySpent.size,
          ...spends,
          ...budgets.flatMap((c) => [c.token, c.nanos.toString(), c.ttlSeconds]),
        ];
        const lease = opts.leases?.get(userId);
        let reply: [number, string | null];
        let leaseReply: unknown;
        if (lease !== undefined && rebuildArgs.length <= REBUILD_THEN_LEASE_MAX_ARGS) {
          [reply, leaseReply] = (await runScript(
            deps.redis,
            REBUILD_THEN_LEASE,
            [...rebuildKeys, ...lease.keys],
            [rebuildKeys.length, rebuildArgs.length, ...rebuildArgs, ...lease.args],
          )) as [[number, string | null], unknown];
        } else {
          reply = (await runScript(deps.redis, REBUILD, rebuildKeys, rebuildArgs)) as [number, string | null];
        }
        const result = { written: reply[0] === 1, balanceNanos: reply[1] === null ? null : BigInt(reply[1]) };
        results.set(userId, result);
        opts.onLoaded?.(userId, result, leaseReply);
      }),
    );
  });
  return results;
}

/**
 * Every account's balance row locked: one statement (lockDurableBalances); accounts it left out
 * are locked the long way, in the same transaction (locking rows it may already hold is harmless).
 */
async function lockAll(trx: Kysely<Database>, slots: readonly string[]): Promise<LockedBalance[]> {
  const users: string[] = [];
  const teams: string[] = [];
  for (const slot of slots) {
    const a = accountOfSlot(slot);
    (a.kind === 'team' ? teams : users).push(a.id);
  }
  const locked = await lockDurableBalances(trx, users, teams);
  const found = new Set(locked.map((l) => (l.team ? accountSlot({ kind: 'team', id: l.id }) : l.id)));
  const missing = slots.filter((slot) => !found.has(slot));
  if (missing.length === 0) return locked;
  const missingUsers: string[] = [];
  const missingTeams: string[] = [];
  for (const slot of missing) {
    const a = accountOfSlot(slot);
    (a.kind === 'team' ? missingTeams : missingUsers).push(a.id);
  }
  const long = [
    ...[...(await lockDurableQuota(trx, missingUsers))].map(([id, q]) => ({ id, team: false, q })),
    ...[...(await lockDurableTeamQuota(trx, missingTeams))].map(([id, q]) => ({ id, team: true, q })),
  ];
  return [...locked, ...long.map(({ id, team, q }) => ({ id, team, balanceNanos: q.balanceNanos }))];
}
