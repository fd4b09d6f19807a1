import { type Kysely, sql } from 'kysely';
import { type BudgetRow } from './budgets.table.js';
import { type Database } from './database.js';
import { type BudgetListRow, type BudgetPageQuery } from './budgets.repository.js';
import { bytewise, exactTime, lowerBytewise, pastRow, startsWith } from './keyset.js';
import { type DurableQuota } from './quota-balances.repository.js';
import { chunk } from './request-logs.repository.js';
import { type Team, type TeamGrant } from './teams.table.js';

/**
 * The team side of the quota ledger (docs/teams.md): the same shapes as a user's, keyed by team.
 * A team's durable quota: its balance and the spend of each of its keys.
 */
export async function lockDurableTeamQuota(
  trx: Kysely<Database>,
  teamIds: readonly string[],
): Promise<Map<string, DurableQuota>> {
  const out = new Map<string, DurableQuota>();
  if (teamIds.length === 0) return out;
  const ids = [...new Set(teamIds)].sort();
  await trx
    .insertInto('team_balances')
    .columns(['team_id'])
    .expression((eb) => eb.selectFrom('teams').select('id').where('id', 'in', ids).orderBy('id'))
    .onConflict((oc) => oc.column('team_id').doNothing())
    .execute();
  const balances = await trx
    .selectFrom('team_balances')
    .select(['team_id', 'balance_nanos'])
    .where('team_id', 'in', ids)
    .orderBy('team_id')
    .forUpdate()
    .execute();
  const keys = await trx
    .selectFrom('api_keys')
    .select(['id', 'team_id', 'spent_nanos'])
    .where('team_id', 'in', ids)
    .execute();
  const spentByTeam = new Map<string, Map<string, bigint>>();
  for (const k of keys) {
    let m = spentByTeam.get(k.team_id!);
    if (!m) spentByTeam.set(k.team_id!, (m = new Map()));
    m.set(k.id, BigInt(k.spent_nanos));
  }
  for (const b of balances) {
    out.set(b.team_id, {
      userId: b.team_id,
      balanceNanos: BigInt(b.balance_nanos),
      keySpent: spentByTeam.get(b.team_id) ?? new Map(),
    });
  }
  return out;
}

/** One page of team ids with a balance row, in id order after `afterId` (reconciliation sweeps). */
export async function pageQuotaTeamIds(
  db: Kysely<Database>,
  afterId: string | null,
  limit: number,
): Promise<string[]> {
  let q = db.selectFrom('team_balances').select('team_id').orderBy('team_id').limit(limit);
  if (afterId !== null) q = q.where('team_id', '>', afterId);
  return (await q.execute()).map((r) => r.team_id);
}

export interface TeamGrantInput {
  readonly teamId: string;
  /** Nanocredits to add; negative takes credits back. Zero is refused by the table. */
  readonly amountNanos: bigint | number | string;
  readonly grantedBy: string | null;
  readonly note: string;
}

/** Records a team grant and adds it to the team's durable balance in one statement; the new balance. */
export async function insertTeamGrant(db: Kysely<Database>, grant: TeamGrantInput): Promise<string> {
  const row = await db
    .with('grant', (qb) =>
      qb
        .insertInto('team_grants')
        .values({
          team_id: grant.teamId,
          amount_nanos: String(grant.amountNanos),
          granted_by: grant.grantedBy,
          note: grant.note,
        })
        .returning(['team_id', 'amount_nanos']),
    )
    .insertInto('team_balances')
    .columns(['team_id', 'balance_nanos'])
    .expression((eb) => eb.selectFrom('grant').select(['grant.team_id', 'grant.amount_nanos']))
    .onConflict((oc) =>
      oc.column('team_id').doUpdateSet({
        balance_nanos: sql`team_balances.balance_nanos + excluded.balance_nanos`,
        updated_at: sql`now()`,
      }),
    )
    .returning('balance_nanos')
    .executeTakeFirstOrThrow();
  return row.balance_nanos;
}

export async function getTeamBalance(
  db: Kysely<Database>,
  teamId: string,
): Promise<{ balance_nanos: string; spent_nanos: string } | undefined> {
  return db
    .selectFrom('team_balances')
    .select(['balance_nanos', 'spent_nanos'])
    .where('team_id', '=', teamId)
    .executeTakeFirst();
}

/** A team's grants, newest first. */
export async function listTeamGrants(
  db: Kysely<Database>,
  teamId: string,
  limit = 100,
): Promise<TeamGrant[]> {
  return db
    .selectFrom('team_grants')
    .selectAll()
    .where('team_id', '=', teamId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
}

/**
 * Ledger sums of a team (grants - its charges: those kept plus the daily totals of those
 * retention retired), to audit the stored balance against.
 */
export async function teamLedgerBalance(db: Kysely<Database>, teamId: string): Promise<bigint> {
  const { rows } = await sql<{ total: string }>`
    select (coalesce((select sum(amount_nanos) from team_grants where team_id = ${teamId}), 0)
          - coalesce((select sum(amount_nanos) from charges where team_id = ${teamId}), 0)
          - coalesce((select sum(amount_nanos) from charge_daily_totals where team_id = ${teamId}), 0))::text as total`.execute(
    db,
  );
  return BigInt(rows[0]?.total ?? '0');
}

/**
 * The team of each of these keys that has one (key id -> team id). A key's team is fixed when it
 * is created, so the worker reads it here rather than trusting it to travel in every log.
 */
export async function teamsOfKeys(
  db: Kysely<Database>,
  keyIds: readonly string[],
): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const part of chunk([...new Set(keyIds)], 10_000)) {
    const rows = await db
      .selectFrom('api_keys')
      .select(['id', 'team_id'])
      .where('id', 'in', part)
      .where('team_id', 'is not', null)
      .execute();
    for (const r of rows) out.set(r.id, r.team_id!);
  }
  return out;
}

/** Every budget these teams' requests count in: the teams' own and those of their keys. */
export async function budgetsOfTeams(
  db: Kysely<Database>,
  teamIds: readonly string[],
): Promise<Array<BudgetRow & { account_team_id: string }>> {
  if (teamIds.length === 0) return [];
  const rows = await db
    .selectFrom('budgets')
    .leftJoin('api_keys', 'api_keys.id', 'budgets.key_id')
    .selectAll('budgets')
    .select(sql<string>`coalesce(budgets.team_id, api_keys.team_id)`.as('account_team_id'))
    .where(sql<boolean>`coalesce(budgets.team_id, api_keys.team_id) in (${sql.join([...teamIds])})`)
    .orderBy('budgets.id')
    .execute();
  return rows;
}

// ---- Teams, members and team admins (the console) ----

export interface TeamSummary extends Team {
  readonly member_count: number;
  readonly balance_nanos: string;
  readonly spent_nanos: string;
}

const summary = (db: Kysely<Database>) =>
  db
    .selectFrom('teams')
    .leftJoin('team_balances', 'team_balances.team_id', 'teams.id')
    .selectAll('teams')
    .select([
      sql<number>`(select count(*)::int from team_members m where m.team_id = teams.id)`.as('member_count'),
      sql<string>`coalesce(team_balances.balance_nanos, 0)::text`.as('balance_nanos'),
      sql<string>`coalesce(team_balances.spent_nanos, 0)::text`.as('spent_nanos'),
    ]);

/** These teams (a user's own: as many as its memberships), by name. */
export async function listTeams(db: Kysely<Database>, onlyIds: readonly string[]): Promise<TeamSummary[]> {
  if (onlyIds.length === 0) return [];
  return summary(db)
    .where('teams.id', 'in', [...onlyIds])
    .orderBy('teams.name')
    .execute();
}

/** What the admins' team list asks for. */
export interface TeamListQuery {
  /** The start of the name, lowercase. */
  readonly search?: string | undefined;
  /** The previous page's last team: its lowercased name and id (names differ only in case may both exist). */
  readonly after?: { readonly key: string; readonly id: string } | undefined;
  readonly limit: number;
}

/**
 * One page of every team, by name (any case, byte order) then id: the index on
 * (lower(name) collate "C", id) of migration 0022 serves the order, the cursor and the search.
 */
export async function pageTeams(db: Kysely<Database>, q: TeamListQuery): Promise<TeamSummary[]> {
  const name = lowerBytewise('teams.name');
  let query = summary(db);
  if (q.search) query = query.where(name, 'like', startsWith(q.search));
  if (q.after)
    query = query.where((eb) =>
      eb(eb.tuple(name, eb.ref('teams.id')), '>', eb.tuple(q.after!.key, sql<string>`${q.after!.id}::uuid`)),
    );
  return query.orderBy(name).orderBy('teams.id').limit(q.limit).execute();
}

export async function findTeam(db: Kysely<Database>, id: string): Promise<TeamSummary | undefined> {
  return summary(db).where('teams.id', '=', id).executeTakeFirst();
}

export async function insertTeam(
  db: Kysely<Database>,
  team: { name: string; groups: string[]; createdBy: string | null },
): Promise<Team> {
  return db
    .insertInto('teams')
    .values({ name: team.name, groups: team.groups, created_by: team.createdBy })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** Locks and reads one team (the row a change is made under). */
export async function lockTeam(db: Kysely<Database>, id: string): Promise<Team | undefined> {
  return db.selectFrom('teams').selectAll().where('id', '=', id).forUpdate().executeTakeFirst();
}

export async function updateTeam(
  db: Kysely<Database>,
  id: string,
  change: { name?: string; groups?: string[] },
): Promise<Team | undefined> {
  return db.updateTable('teams').set(change).where('id', '=', id).returningAll().executeTakeFirst();
}

/** Deletes a team; throws Postgres' foreign key violation (23503) while keys or charges name it. */
export async function deleteTeam(db: Kysely<Database>, id: string): Promise<Team | undefined> {
  return db.deleteFrom('teams').where('id', '=', id).returningAll().executeTakeFirst();
}

export interface TeamMemberView {
  readonly user_id: string;
  readonly email: string;
  readonly is_admin: boolean;
  readonly added_at: Date;
}

/** What a team's member list asks for. */
export interface TeamMemberQuery {
  /** The start of the member's email, lowercase. */
  readonly search?: string | undefined;
  /** The email of the previous page's last member (unique in a team). */
  readonly afterEmail?: string | undefined;
  readonly limit: number;
}

/**
 * One page of a team's members in email order (byte order). The membership primary key finds the
 * team's members; what is sorted is that one team's members, never the whole users table.
 */
export async function listTeamMembers(
  db: Kysely<Database>,
  teamId: string,
  q: TeamMemberQuery,
): Promise<TeamMemberView[]> {
  const email = bytewise('users.email');
  let query = db
    .selectFrom('team_members')
    .innerJoin('users', 'users.id', 'team_members.user_id')
    .select(['team_members.user_id', 'users.email', 'team_members.is_admin', 'team_members.added_at'])
    .where('team_members.team_id', '=', teamId);
  if (q.search) query = query.where(email, 'like', startsWith(q.search));
  if (q.afterEmail !== undefined) query = query.where(email, '>', q.afterEmail);
  return query.orderBy(email).limit(q.limit).execute();
}

export async function findTeamMember(
  db: Kysely<Database>,
  teamId: string,
  userId: string,
): Promise<{ is_admin: boolean } | undefined> {
  return db
    .selectFrom('team_members')
    .select('is_admin')
    .where('team_id', '=', teamId)
    .where('user_id', '=', userId)
    .executeTakeFirst();
}

/** Adds a member (or changes its admin flag); returns the membership before, if any. */
export async function upsertTeamMember(
  db: Kysely<Database>,
  m: { teamId: string; userId: string; isAdmin: boolean },
): Promise<void> {
  await db
    .insertInto('team_members')
    .values({ team_id: m.teamId, user_id: m.userId, is_admin: m.isAdmin })
    .onConflict((oc) => oc.columns(['team_id', 'user_id']).doUpdateSet({ is_admin: m.isAdmin }))
    .execute();
}

export async function deleteTeamMember(
  db: Kysely<Database>,
  teamId: string,
  userId: string,
): Promise<{ is_admin: boolean } | undefined> {
  return db
    .deleteFrom('team_members')
    .where('team_id', '=', teamId)
    .where('user_id', '=', userId)
    .returning('is_admin')
    .executeTakeFirst();
}

/** The teams a user belongs to, with whether it is their admin. */
export async function teamsOfUser(
  db: Kysely<Database>,
  userId: string,
): Promise<Array<{ team_id: string; name: string; groups: string[]; is_admin: boolean }>> {
  return db
    .selectFrom('team_members')
    .innerJoin('teams', 'teams.id', 'team_members.team_id')
    .select(['team_members.team_id', 'teams.name', 'teams.groups', 'team_members.is_admin'])
    .where('team_members.user_id', '=', userId)
    .orderBy('teams.name')
    .execute();
}

/** Hashes of every key of a team (its budgets and groups travel in their cached records). */
export async function keyHashesOfTeam(db: Kysely<Database>, teamId: string): Promise<string[]> {
  const rows = await db.selectFrom('api_keys').select('key_hash').where('team_id', '=', teamId).execute();
  return rows.map((r) => r.key_hash);
}

/** Hashes of one member's keys of a team (removing the member ends them). */
export async function keyHashesOfTeamMember(
  db: Kysely<Database>,
  teamId: string,
  userId: string,
): Promise<string[]> {
  const rows = await db
    .selectFrom('api_keys')
    .select('key_hash')
    .where('team_id', '=', teamId)
    .where('user_id', '=', userId)
    .execute();
  return rows.map((r) => r.key_hash);
}

/** A page of a team's own budgets (over all its keys), oldest first (budgets_team_idx). */
export async function listTeamBudgets(
  db: Kysely<Database>,
  teamId: string,
  page: BudgetPageQuery,
): Promise<BudgetListRow[]> {
  let q = db
    .selectFrom('budgets')
    .selectAll()
    .select(exactTime('budgets.created_at').as('created_at_exact'))
    .where('team_id', '=', teamId)
    .where('key_id', 'is', null);
  if (page.after) q = q.where(pastRow('budgets', '>', page.after));
  return q.orderBy('created_at').orderBy('id').limit(page.limit).execute();
}

export async function deleteTeamBudget(
  db: Kysely<Database>,
  teamId: string,
  id: string,
): Promise<BudgetRow | undefined> {
  return db
    .deleteFrom('budgets')
    .where('id', '=', id)
    .where('team_id', '=', teamId)
    .where('key_id', 'is', null)
    .returningAll()
    .executeTakeFirst();
}
