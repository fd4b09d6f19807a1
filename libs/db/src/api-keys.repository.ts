import { type Kysely, sql } from 'kysely';
import { type ApiKey, type ApiKeyStatus, type NewApiKey } from './api-keys.table.js';
import { type BudgetRow } from './budgets.table.js';
import { type Database } from './database.js';
import { type UserStatus } from './users.table.js';

/**
 * What the edge needs to authorize a request with a key; nothing secret. `user_status` is the
 * owner's: a disabled user's keys must fail even while the key itself is `active`.
 */
export interface ApiKeyLookup {
  readonly id: string;
  readonly user_id: string;
  readonly group_name: string;
  readonly status: ApiKeyStatus;
  readonly expires_at: Date | null;
  /** Lifetime cap of the key in nanocredits (int8 as string), or null. */
  readonly spend_limit_nanos: string | null;
  /** Per-minute limits of the key; null = none. */
  readonly rpm_limit: number | null;
  readonly tpm_limit: number | null;
  readonly user_status: UserStatus;
  /** The key's team (it spends the team's credits), or null. */
  readonly team_id: string | null;
  /**
   * For a team key: its owner is still a member and its group still one the team allows (a key
   * outliving either must stop working); always true for a user's own key.
   */
  readonly team_allows: boolean;
}

export async function insertApiKey(db: Kysely<Database>, key: NewApiKey): Promise<ApiKey> {
  return db.insertInto('api_keys').values(key).returningAll().executeTakeFirstOrThrow();
}

export async function findApiKeyByHash(
  db: Kysely<Database>,
  keyHash: string,
): Promise<ApiKeyLookup | undefined> {
  return db
    .selectFrom('api_keys')
    .innerJoin('users', 'users.id', 'api_keys.user_id')
    .select([
      'api_keys.id',
      'api_keys.user_id',
      'api_keys.group_name',
      'api_keys.status',
      'api_keys.expires_at',
      'api_keys.spend_limit_nanos',
      'api_keys.rpm_limit',
      'api_keys.tpm_limit',
      'users.status as user_status',
      'api_keys.team_id',
      sql<boolean>`api_keys.team_id is null or exists (
        select 1 from team_members m join teams t on t.id = m.team_id
        where m.team_id = api_keys.team_id and m.user_id = api_keys.user_id
          and api_keys.group_name = any(t.groups))`.as('team_allows'),
    ])
    .where('api_keys.key_hash', '=', keyHash)
    .executeTakeFirst();
}

/**
 * Moves `last_used_at` forward for many keys in one statement. Never moves it back: batches may
 * commit out of order. Keys are visited in id order so concurrent batches lock rows alike.
 */
export async function touchLastUsed(db: Kysely<Database>, usedAt: ReadonlyMap<string, Date>): Promise<void> {
  if (usedAt.size === 0) return;
  const entries = [...usedAt].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const ids = entries.map(([id]) => id);
  const times = entries.map(([, t]) => t.toISOString());
  await db
    .updateTable('api_keys')
    .from(
      sql<{ id: string; used_at: Date }>`unnest(${ids}::uuid[], ${times}::timestamptz[])`.as<'used'>(
        sql`used(id, used_at)`,
      ),
    )
    .set({ last_used_at: sql`greatest(api_keys.last_used_at, used.used_at)` })
    .whereRef('api_keys.id', '=', 'used.id')
    .execute();
}

/**
 * A key's budgets as its lookup carries them: those of the key, and its account's (its owner's
 * own for a user key, its team's for a team key). `limit_nanos` is int8 as a decimal string.
 */
export type KeyBudget = Pick<
  BudgetRow,
  'id' | 'user_id' | 'team_id' | 'key_id' | 'period' | 'window_kind' | 'model_group' | 'models'
> & { readonly limit_nanos: string };

export interface ApiKeyWithBudgets extends ApiKeyLookup {
  readonly key_hash: string;
  /** In creation order, as budgetsForKey returns them. */
  readonly budgets: readonly KeyBudget[];
}

/**
 * The keys of these hashes with their budgets, in one statement: what findApiKeyByHash and
 * budgetsForKey read in two. The edge's cold key lookups (one or many at once) use it. Unknown
 * hashes are left out. `key_hash` is char(64): the array is bpchar[] so the unique index serves
 * it (against text[] Postgres compares as text and scans every key). The owner and the budgets
 * are read per key by index (a subquery each, the budgets' three kinds apart): joined, or with
 * the kinds or-ed in one condition, the planner read every user or every budget (at 100k users
 * and 13k budgets, 44 ms for 500 keys against 16, and about 1 ms for one key).
 */
export async function findApiKeysByHashes(
  db: Kysely<Database>,
  keyHashes: readonly string[],
): Promise<ApiKeyWithBudgets[]> {
  if (keyHashes.length === 0) return [];
  const { rows } = await sql<ApiKeyWithBudgets>`
    select k.id, k.user_id, k.group_name, k.status, k.expires_at, k.spend_limit_nanos::text as spend_limit_nanos,
      k.rpm_limit, k.tpm_limit, (select u.status from users u where u.id = k.user_id) as user_status,
      k.team_id, k.key_hash,
      (k.team_id is null or exists (
        select 1 from team_members m join teams t on t.id = m.team_id
        where m.team_id = k.team_id and m.user_id = k.user_id and k.group_name = any(t.groups))) as team_allows,
      coalesce((
        select json_agg(json_build_object('id', b.id, 'user_id', b.user_id, 'team_id', b.team_id,
            'key_id', b.key_id, 'period', b.period, 'window_kind', b.window_kind,
            'limit_nanos', b.limit_nanos::text, 'model_group', b.model_group, 'models', b.models)
          order by b.created_at, b.id)
        from (
          select * from budgets b where b.key_id = k.id
          union all select * from budgets b
            where k.team_id is null and b.user_id = k.user_id and b.key_id is null and b.team_id is null
          union all select * from budgets b where k.team_id is not null and b.team_id = k.team_id and b.key_id is null
        ) b
      ), '[]'::json) as budgets
    from api_keys k
    where k.key_hash = any(${keyHashes as string[]}::bpchar[])`.execute(db);
  return rows;
}
