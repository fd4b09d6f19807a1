import { type Kysely } from 'kysely';
import { type Database, getQuotaBalance, getTeamBalance, insertGrant, insertTeamGrant } from '#libs/db';
import { accountSlot } from './accounts.js';
import { type QuotaDeps } from './rebuild.js';
import { ADD_IF_LOADED, runScript } from './scripts.js';

export interface GrantRequest {
  readonly userId: string;
  /** Nanocredits to add (1 credit = 1e9); negative takes credits back. Must not be zero. */
  readonly nanos: bigint;
  /** The granting admin's user id, or null for the system. */
  readonly grantedBy: string | null;
  readonly note: string;
}

/** Called when the Redis copy could not be updated (the periodic reconciliation repairs it). */
export type QuotaWarn = (message: string) => void;

/**
 * Grants credits: writes a `quota_grants` ledger row and the durable balance in one Postgres
 * transaction, and adds the grant to the Redis copy (if one is loaded) while that transaction
 * still holds the balance row, so a reconciliation cannot interleave and count it twice.
 * Returns the new durable balance. Redis being down does not fail the grant: it is durable, and
 * the next reconciliation (or the edge's next seed) brings Redis up to date.
 */
export function grantCredits(deps: QuotaDeps, grant: GrantRequest, warn?: QuotaWarn): Promise<bigint> {
  return grantTo(deps, grant.userId, grant.nanos, warn, (trx) =>
    insertGrant(trx, {
      userId: grant.userId,
      amountNanos: grant.nanos,
      grantedBy: grant.grantedBy,
      note: grant.note,
    }),
  );
}

export interface TeamGrantRequest {
  readonly teamId: string;
  /** Nanocredits to add (1 credit = 1e9); negative takes credits back. Must not be zero. */
  readonly nanos: bigint;
  readonly grantedBy: string | null;
  readonly note: string;
}

/** The same for a team's account (docs/teams.md): its `team_grants` row, its balance and its copy. */
export function grantTeamCredits(
  deps: QuotaDeps,
  grant: TeamGrantRequest,
  warn?: QuotaWarn,
): Promise<bigint> {
  return grantTo(deps, accountSlot({ kind: 'team', id: grant.teamId }), grant.nanos, warn, (trx) =>
    insertTeamGrant(trx, {
      teamId: grant.teamId,
      amountNanos: grant.nanos,
      grantedBy: grant.grantedBy,
      note: grant.note,
    }),
  );
}

/** One grant to the account of `slot`: `insert` writes its ledger row and durable balance. */
async function grantTo(
  deps: QuotaDeps,
  slot: string,
  nanos: bigint,
  warn: QuotaWarn | undefined,
  insert: (trx: Kysely<Database>) => Promise<string>,
): Promise<bigint> {
  if (nanos === 0n) throw new RangeError('a grant of zero nanocredits records nothing');
  let addedToRedis = false;
  try {
    return await deps.db.transaction().execute(async (trx) => {
      const balance = await insert(trx);
      try {
        const live = await runScript(
          deps.redis,
          ADD_IF_LOADED,
          [deps.keys.quotaBalance(slot)],
          [nanos.toString()],
        );
        addedToRedis = live !== null;
      } catch (err) {
        warn?.(`grant to ${slot} is durable but not yet in Redis: ${(err as Error).message}`);
      }
      return BigInt(balance);
    });
  } catch (err) {
    // The grant did not commit: take back what Redis was given (best effort; reconciliation
    // corrects it otherwise).
    if (addedToRedis)
      await runScript(deps.redis, ADD_IF_LOADED, [deps.keys.quotaBalance(slot)], [(-nanos).toString()]).catch(
        () => undefined,
      );
    throw err;
  }
}

export interface BalanceView {
  /** The durable balance in Postgres: every grant minus every settled charge. */
  readonly balanceNanos: bigint;
  /** Everything ever charged to the user (settled). */
  readonly spentNanos: bigint;
  /**
   * What the edges admit against right now: the durable balance minus charges not settled yet.
   * Null when Redis holds no copy (nobody used the gateway since Redis started) or is unreachable.
   */
  readonly liveNanos: bigint | null;
}

/** A user's balance for display (the console); zero for a user without a balance row. */
export async function readBalance(deps: QuotaDeps, userId: string): Promise<BalanceView> {
  const [row, live] = await Promise.all([
    getQuotaBalance(deps.db, userId),
    deps.redis.get(deps.keys.quotaBalance(userId)).catch(() => null),
  ]);
  return {
    balanceNanos: BigInt(row?.balance_nanos ?? 0),
    spentNanos: BigInt(row?.spent_nanos ?? 0),
    liveNanos: live === null ? null : BigInt(live),
  };
}

/** A team's balance for display, as readBalance for a user. */
export async function readTeamBalance(deps: QuotaDeps, teamId: string): Promise<BalanceView> {
  const [row, live] = await Promise.all([
    getTeamBalance(deps.db, teamId),
    deps.redis.get(deps.keys.quotaBalance(accountSlot({ kind: 'team', id: teamId }))).catch(() => null),
  ]);
  return {
    balanceNanos: BigInt(row?.balance_nanos ?? 0),
    spentNanos: BigInt(row?.spent_nanos ?? 0),
    liveNanos: live === null ? null : BigInt(live),
  };
}
