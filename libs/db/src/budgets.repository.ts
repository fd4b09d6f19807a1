import { type Kysely, sql } from 'kysely';
import { type BudgetRow, type NewBudget } from './budgets.table.js';
import { retiredChargesSum } from './charges.repository.js';
import { type Database } from './database.js';
import { exactTime, pastRow, type TimeAndId } from './keyset.js';

export async function insertBudget(db: Kysely<Database>, budget: NewBudget): Promise<BudgetRow> {
  return db.insertInto('budgets').values(budget).returningAll().executeTakeFirstOrThrow();
}

/** A page of an owner's budgets: after the previous page's last (oldest first), how many rows. */
export interface BudgetPageQuery {
  readonly after?: TimeAndId | undefined;
  readonly limit: number;
}

/** A budget row with its creation time to the microsecond (the next page's cursor). */
export type BudgetListRow = BudgetRow & { readonly created_at_exact: string };

/**
 * A page of a key's own budgets (`keyId`), or of a user's budgets over all its keys (`keyId`
 * null); oldest first, keyset on (created_at, id) within the owner's few rows (budgets_user_idx).
 */
export async function listBudgets(
  db: Kysely<Database>,
  owner: { readonly userId: string; readonly keyId: string | null },
  page: BudgetPageQuery,
): Promise<BudgetListRow[]> {
  let q = db
    .selectFrom('budgets')
    .selectAll()
    .select(exactTime('budgets.created_at').as('created_at_exact'))
    .where('user_id', '=', owner.userId);
  q = owner.keyId === null ? q.where('key_id', 'is', null) : q.where('key_id', '=', owner.keyId);
  if (page.after) q = q.where(pastRow('budgets', '>', page.after));
  return q.orderBy('created_at').orderBy('id').limit(page.limit).execute();
}

/**
 * Every budget a request with this key must respect: the key's and its account's (its team's for
 * a team key, else its owner's own; a user's budgets do not limit the team keys it holds).
 */
export async function budgetsForKey(
  db: Kysely<Database>,
  keyId: string,
  userId: string,
  teamId: string | null = null,
): Promise<BudgetRow[]> {
  return db
    .selectFrom('budgets')
    .selectAll()
    .where((eb) =>
      eb.or([
        eb('key_id', '=', keyId),
        teamId === null
          ? eb.and([eb('user_id', '=', userId), eb('key_id', 'is', null), eb('team_id', 'is', null)])
          : eb.and([eb('team_id', '=', teamId), eb('key_id', 'is', null)]),
      ]),
    )
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

/**
 * Every budget counting in these users' own accounts, their keys' included (rebuilding their Redis
 * copies); budgets of their team keys count in the teams' (budgetsOfTeams).
 */
export async function budgetsOfUsers(db: Kysely<Database>, userIds: readonly string[]): Promise<BudgetRow[]> {
  if (userIds.length === 0) return [];
  return db
    .selectFrom('budgets')
    .selectAll()
    .where('user_id', 'in', userIds)
    .where('team_id', 'is', null)
    .where((eb) =>
      eb.or([
        eb('key_id', 'is', null),
        eb.not(
          eb.exists(
            eb
              .selectFrom('api_keys as k')
              .select('k.id')
              .whereRef('k.id', '=', 'budgets.key_id')
              .where('k.team_id', 'is not', null),
          ),
        ),
      ]),
    )
    .orderBy('id')
    .execute();
}

/** Deletes one budget of this owner (see listBudgets); undefined when it has no such budget. */
export async function deleteBudget(
  db: Kysely<Database>,
  id: string,
  owner: { readonly userId: string; readonly keyId: string | null },
): Promise<BudgetRow | undefined> {
  let q = db.deleteFrom('budgets').where('id', '=', id).where('user_id', '=', owner.userId);
  q = owner.keyId === null ? q.where('key_id', 'is', null) : q.where('key_id', '=', owner.keyId);
  return q.returningAll().executeTakeFirst();
}

export interface BudgetSpendQuery {
  /** The account: a user's own charges (no team), or with `teamId` the team's (userId ignored). */
  readonly userId: string | null;
  readonly teamId?: string | null;
  /** Only this key's charges, or null: all of the user's. */
  readonly keyId: string | null;
  /** Only charges of these models, or null: every model. */
  readonly models: readonly string[] | null;
  /** The window [fromMs, toMs) by the requests' start; toMs null = open. */
  readonly fromMs: number;
  readonly toMs: number | null;
  /** Sums per bucket of this many ms (buckets aligned on the epoch), or null: one sum at fromMs. */
  readonly bucketMs: number | null;
}

/** Charged nanocredits per bucket start (ms) in a budget's window; buckets without charges are absent. */
export async function budgetSpendByBucket(
  db: Kysely<Database>,
  q: BudgetSpendQuery,
): Promise<Map<number, bigint>> {
  if (q.models !== null && q.models.length === 0) return new Map();
  const bucket =
    q.bucketMs === null
      ? sql<string>`${String(q.fromMs)}::bigint`
      : sql<string>`(floor(extract(epoch from started_at) * 1000 / ${q.bucketMs})::bigint * ${q.bucketMs})`;
  let query = db
    .selectFrom('charges')
    .select([bucket.as('bucket'), sql<string>`sum(amount_nanos)::text`.as('total')])
    .where('started_at', '>=', new Date(q.fromMs))
    .groupBy(sql`1`);
  // A key's charges are all of one account (its team is fixed), so a key budget needs no more.
  if (q.keyId !== null) query = query.where('key_id', '=', q.keyId);
  else if (q.teamId != null) query = query.where('team_id', '=', q.teamId);
  else if (q.userId !== null) query = query.where('user_id', '=', q.userId).where('team_id', 'is', null);
  else return new Map();
  if (q.toMs !== null) query = query.where('started_at', '<', new Date(q.toMs));
  if (q.models !== null) query = query.where('model', 'in', [...q.models]);
  const rows = await query.execute();
  const spend = new Map(rows.map((r) => [Number(r.bucket), BigInt(r.total)]));
  // A one-bucket window (a lifetime budget, say) also counts the charges retention retired into
  // daily totals; a rolling window's buckets all lie within the charges kept (docs/quota.md).
  if (q.bucketMs === null) {
    const retired = await retiredChargesSum(db, q);
    if (retired > 0n) spend.set(q.fromMs, (spend.get(q.fromMs) ?? 0n) + retired);
  }
  return spend;
}
