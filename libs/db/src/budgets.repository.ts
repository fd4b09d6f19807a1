import { type Kysely, sql } from 'kysely';
import { type BudgetRow, type NewBudget } from './budgets.table.js';
import { type Database } from './database.js';

export async function insertBudget(db: Kysely<Database>, budget: NewBudget): Promise<BudgetRow> {
  return db.insertInto('budgets').values(budget).returningAll().executeTakeFirstOrThrow();
}

/** A key's own budgets (`keyId`), or a user's budgets over all its keys (`keyId` null); oldest first. */
export async function listBudgets(
  db: Kysely<Database>,
  owner: { readonly userId: string; readonly keyId: string | null },
): Promise<BudgetRow[]> {
  let q = db.selectFrom('budgets').selectAll().where('user_id', '=', owner.userId);
  q = owner.keyId === null ? q.where('key_id', 'is', null) : q.where('key_id', '=', owner.keyId);
  return q.orderBy('created_at').orderBy('id').execute();
}

/** Every budget a request with this key must respect: the key's and its owner's. */
export async function budgetsForKey(
  db: Kysely<Database>,
  keyId: string,
  userId: string,
): Promise<BudgetRow[]> {
  return db
    .selectFrom('budgets')
    .selectAll()
    .where('user_id', '=', userId)
    .where((eb) => eb.or([eb('key_id', 'is', null), eb('key_id', '=', keyId)]))
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

/** Every budget of these users, their keys' included (rebuilding their Redis copies). */
export async function budgetsOfUsers(db: Kysely<Database>, userIds: readonly string[]): Promise<BudgetRow[]> {
  if (userIds.length === 0) return [];
  return db.selectFrom('budgets').selectAll().where('user_id', 'in', userIds).orderBy('id').execute();
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
  readonly userId: string;
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
    .where('user_id', '=', q.userId)
    .where('started_at', '>=', new Date(q.fromMs))
    .groupBy(sql`1`);
  if (q.toMs !== null) query = query.where('started_at', '<', new Date(q.toMs));
  if (q.keyId !== null) query = query.where('key_id', '=', q.keyId);
  if (q.models !== null) query = query.where('model', 'in', [...q.models]);
  const rows = await query.execute();
  return new Map(rows.map((r) => [Number(r.bucket), BigInt(r.total)]));
}
