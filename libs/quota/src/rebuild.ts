import { type Kysely } from 'kysely';
import { type Database, lockDurableQuota, lockDurableTeamQuota, settledRequestIds } from '#libs/db';
import { type RedisClient, type RedisKeys } from '#libs/redis';
import { accountOfSlot, accountSlot } from './accounts.js';
import { durableBudgetCounters } from './budget-rebuild.js';
import { type ModelGroups } from './budgets.js';
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
 * script itself is atomic with every edge's admit and settle. Unknown accounts are left out of
 * the result, which is keyed by slot.
 */
export async function rebuildQuotas(
  deps: QuotaDeps,
  userIds: readonly string[],
  opts: RebuildOptions,
): Promise<Map<string, RebuildResult>> {
  const results = new Map<string, RebuildResult>();
  if (userIds.length === 0) return results;
  const pendingIds = await Promise.all(userIds.map((u) => deps.redis.hkeys(deps.keys.quotaPending(u))));
  const maxAge = opts.pendingMaxAgeMs ?? DEFAULT_PENDING_MAX_AGE_MS;
  await deps.db.transaction().execute(async (trx) => {
    const users: string[] = [];
    const teams: string[] = [];
    for (const slot of userIds) {
      const a = accountOfSlot(slot);
      (a.kind === 'team' ? teams : users).push(a.id);
    }
    const durable = new Map(await lockDurableQuota(trx, users));
    for (const [teamId, quota] of await lockDurableTeamQuota(trx, teams))
      durable.set(accountSlot({ kind: 'team', id: teamId }), quota);
    const settled = await settledRequestIds(trx, pendingIds.flat());
    const now = (opts.now ?? Date.now)();
    const counters = await durableBudgetCounters(trx, deps.keys, userIds, opts.modelGroups ?? new Map(), now);
    await Promise.all(
      userIds.map(async (userId, i) => {
        const quota = durable.get(userId);
        if (!quota) return;
        const settledHere = pendingIds[i]!.filter((id) => settled.has(id));
        const spends = [...quota.keySpent].flatMap(([keyId, spent]) => [keyId, spent.toString()]);
        const budgets = counters.get(userId) ?? [];
        const reply = (await runScript(
          deps.redis,
          REBUILD,
          [
            deps.keys.quotaBalance(userId),
            deps.keys.quotaKeySpent(userId),
            deps.keys.quotaPending(userId),
            ...budgets.map((c) => c.key),
          ],
          [
            opts.mode,
            quota.balanceNanos.toString(),
            now,
            maxAge,
            settledHere.length,
            ...settledHere,
            quota.keySpent.size,
            ...spends,
            ...budgets.flatMap((c) => [c.token, c.nanos.toString(), c.ttlSeconds]),
          ],
        )) as [number, string | null];
        results.set(userId, {
          written: reply[0] === 1,
          balanceNanos: reply[1] === null ? null : BigInt(reply[1]),
        });
      }),
    );
  });
  return results;
}
