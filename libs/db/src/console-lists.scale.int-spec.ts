import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import { createTestDatabase, type TestDatabase } from '../../../test/support/db.js';
import { generateOrganisation } from '../../../test/support/scale-data.js';
import { type ConsoleKeyQuery, listConsoleKeys } from './console-keys.repository.js';
import { type ConsoleUserQuery, listConsoleUsers } from './console-users.repository.js';
import { type Database } from './database.js';
import { pageTeams } from './teams.repository.js';

/**
 * The console's lists at an organisation's size (issue 40): 100k users and 100k keys generated in
 * a fresh database, then every list must answer a bounded page, chain to its end without
 * duplicates or gaps, and read its first and a deep page through an index, never a sort or a
 * sequential scan of the whole table. Plans are asserted (EXPLAIN ANALYZE), not wall time; the
 * times measured are printed for docs/operations.md.
 */

const N = 100_000;
const SLOW = 240_000;

let t: TestDatabase;
let pool: pg.Pool;
/** The same database through a handle that keeps the last statement it ran, to EXPLAIN it. */
let traced: Kysely<Database>;
let last: { sql: string; parameters: readonly unknown[] } | undefined;
const measured: string[] = [];

beforeAll(async () => {
  t = await createTestDatabase('lists_scale');
  pool = new pg.Pool({ connectionString: t.url, max: 2 });
  traced = new Kysely<Database>({
    dialect: new PostgresDialect({ pool }),
    log: (event) => {
      if (event.level === 'query') last = { sql: event.query.sql, parameters: event.query.parameters };
    },
  });
  const start = performance.now();
  const steps = await generateOrganisation(t.db, N);
  measured.push(
    `generated ${N} users and ${N} keys in ${Math.round(performance.now() - start)} ms ${JSON.stringify(steps)}`,
  );
}, SLOW);

afterAll(async () => {
  process.stdout.write(`console lists at ${N}:\n  ${measured.join('\n  ')}\n`);
  await traced?.destroy();
  await t?.drop();
});

interface PlanNode {
  readonly 'Node Type': string;
  readonly 'Relation Name'?: string;
  readonly 'Index Name'?: string;
  readonly 'Actual Rows': number;
  readonly Plans?: PlanNode[];
}

const flatten = (node: PlanNode): PlanNode[] => [node, ...(node.Plans ?? []).flatMap(flatten)];

/**
 * Runs `query` through the traced handle, then EXPLAIN ANALYZEs the statement it ran: the plan's
 * nodes, the rows returned and the execution time.
 */
async function explain<R>(
  label: string,
  query: (db: Kysely<Database>) => Promise<R[]>,
): Promise<{ nodes: PlanNode[]; rows: R[]; ms: number }> {
  const rows = await query(traced);
  const statement = last!;
  const result = await pool.query<{ 'QUERY PLAN': [{ Plan: PlanNode; 'Execution Time': number }] }>(
    `explain (analyze, format json) ${statement.sql}`,
    [...statement.parameters],
  );
  const [{ Plan, 'Execution Time': ms }] = result.rows[0]!['QUERY PLAN'];
  measured.push(`${label}: ${ms.toFixed(2)} ms, ${rows.length} rows`);
  return { nodes: flatten(Plan), rows, ms };
}

/** Neither a sequential scan of a big table nor a sort of more than `maxSorted` rows. */
function expectIndexed(nodes: PlanNode[], maxSorted = 0): void {
  const seq = nodes.filter(
    (n) =>
      n['Node Type'] === 'Seq Scan' && ['users', 'api_keys', 'quota_balances'].includes(n['Relation Name']!),
  );
  expect(seq).toEqual([]);
  const sorted = nodes
    .filter((n) => n['Node Type'] === 'Sort' || n['Node Type'] === 'Incremental Sort')
    .flatMap((n) => n.Plans ?? [])
    .map((input) => input['Actual Rows']);
  for (const rows of sorted) expect(rows).toBeLessThanOrEqual(maxSorted);
}

async function scalar<T>(query: ReturnType<typeof sql<{ v: T }>>): Promise<T> {
  return (await query.execute(t.db)).rows[0]!.v;
}

/** Walks every page of users matching `q`, `limit` at a time: the emails in page order. */
async function walkUsers(
  q: Omit<ConsoleUserQuery, 'limit' | 'afterEmail'>,
  limit: number,
): Promise<string[]> {
  const out: string[] = [];
  let afterEmail: string | undefined;
  for (;;) {
    const rows = await listConsoleUsers(t.db, { ...q, afterEmail, limit: limit + 1 });
    const page = rows.slice(0, limit);
    expect(page.length).toBeLessThanOrEqual(limit);
    out.push(...page.map((r) => r.email));
    if (rows.length <= limit) return out;
    afterEmail = page.at(-1)!.email;
  }
}

/** Walks up to `maxPages` pages of keys matching `q` from `before`: the ids in page order. */
async function walkKeys(
  q: Omit<ConsoleKeyQuery, 'limit'>,
  limit: number,
  maxPages = Infinity,
): Promise<string[]> {
  const out: string[] = [];
  let before = q.before;
  for (let pages = 0; pages < maxPages; pages++) {
    const rows = await listConsoleKeys(t.db, { ...q, before, limit: limit + 1 });
    const page = rows.slice(0, limit);
    expect(page.length).toBeLessThanOrEqual(limit);
    out.push(...page.map((r) => r.id));
    if (rows.length <= limit) break;
    before = { at: page.at(-1)!.created_at_exact, id: page.at(-1)!.id };
  }
  return out;
}

describe(`users at ${N}`, () => {
  it('reads the first and a deep page through the email index, without a sort', async () => {
    const first = await explain('users, first page', (db) => listConsoleUsers(db, { limit: 51 }));
    expect(first.rows).toHaveLength(51);
    expectIndexed(first.nodes);
    const deepEmail = await scalar<string>(
      sql`select email as v from users order by email collate "C" offset 90000 limit 1`,
    );
    const deep = await explain('users, page after 90,000', (db) =>
      listConsoleUsers(db, { afterEmail: deepEmail, limit: 51 }),
    );
    expect(deep.rows).toHaveLength(51);
    expect(deep.rows[0]!.email > deepEmail).toBe(true);
    expectIndexed(deep.nodes);
  });

  it('serves the role and status filters and the email search by index', async () => {
    for (const [label, q] of [
      ['role auditor', { role: 'auditor' }],
      ['status disabled', { status: 'disabled' }],
      ['search "ab"', { search: 'ab' }],
      ['search "ab", role admin', { search: 'ab', role: 'admin' }],
    ] as const) {
      const { nodes, rows } = await explain(`users, ${label}`, (db) =>
        listConsoleUsers(db, { ...q, limit: 51 }),
      );
      expect(rows.length).toBeLessThanOrEqual(51);
      expectIndexed(nodes, 51);
    }
  });

  it(
    'chains pages to the end without duplicates or gaps',
    async () => {
      const expected = (
        await sql<{ email: string }>`select email from users where email collate "C" like 'a%'
        order by email collate "C"`.execute(t.db)
      ).rows.map((r) => r.email);
      expect(expected.length).toBeGreaterThan(5000);
      expect(await walkUsers({ search: 'a' }, 200)).toEqual(expected);

      const auditors = (
        await sql<{ email: string }>`select email from users where role = 'auditor'
        order by email collate "C"`.execute(t.db)
      ).rows.map((r) => r.email);
      expect(await walkUsers({ role: 'auditor' }, 50)).toEqual(auditors);
    },
    SLOW,
  );
});

describe(`keys at ${N}`, () => {
  it('reads the first and a deep page of everyone’s keys through the (created_at, id) index', async () => {
    const first = await explain('keys, first page', (db) => listConsoleKeys(db, { limit: 51 }));
    expect(first.rows).toHaveLength(51);
    expectIndexed(first.nodes);
    const deep = await scalar<{ at: string; id: string }>(
      sql`select json_build_object('at', to_char(created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'),
        'id', id) as v from api_keys order by created_at desc, id desc offset 90000 limit 1`,
    );
    const page = await explain('keys, page after 90,000', (db) =>
      listConsoleKeys(db, { before: deep, limit: 51 }),
    );
    expect(page.rows).toHaveLength(51);
    expectIndexed(page.nodes);
  });

  it('serves one user’s, one team’s, the revoked, the expired keys and the searches by index', async () => {
    const userId = await scalar<string>(sql`select user_id as v from api_keys order by created_at limit 1`);
    const teamId = await scalar<string>(sql`select id as v from teams order by name limit 1`);
    for (const [label, q, maxSorted] of [
      // The planner may sort a user's or a small team's few keys rather than walk the index.
      ['one user', { userId }, 1000],
      ['one team', { teamId }, 1000],
      ['revoked', { state: 'revoked' }, 0],
      ['expired', { state: 'expired' }, 0],
      ['search name "key 1a"', { search: 'key 1a' }, 1000],
      ['search prefix "sk-1a"', { search: 'sk-1a' }, 1000],
    ] as const) {
      const { nodes, rows } = await explain(`keys, ${label}`, (db) =>
        listConsoleKeys(db, { ...q, limit: 51 }),
      );
      expect(rows.length).toBeGreaterThan(0);
      expect(rows.length).toBeLessThanOrEqual(51);
      expectIndexed(nodes, maxSorted);
    }
  });

  it(
    'chains pages without duplicates or gaps, ties on created_at broken by id',
    async () => {
      const newest = (
        await sql<{
          id: string;
        }>`select id from api_keys order by created_at desc, id desc limit 6000`.execute(t.db)
      ).rows.map((r) => r.id);
      expect(await walkKeys({}, 200, 30)).toEqual(newest);

      const revoked = (
        await sql<{ id: string }>`select id from api_keys where status = 'revoked'
        order by created_at desc, id desc`.execute(t.db)
      ).rows.map((r) => r.id);
      expect(await walkKeys({ state: 'revoked' }, 200)).toEqual(revoked);

      // From a deep cursor to the very end.
      const tail = (
        await sql<{ id: string; at: string }>`select id, to_char(created_at at time zone 'UTC',
        'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as at from api_keys order by created_at desc, id desc offset 96999`.execute(
          t.db,
        )
      ).rows;
      const walked = await walkKeys({ before: { at: tail[0]!.at, id: tail[0]!.id } }, 200);
      expect(walked).toEqual(tail.slice(1).map((r) => r.id));
      expect(new Set(walked).size).toBe(walked.length);
    },
    SLOW,
  );
});

describe('teams', () => {
  it('reads a page of teams by name through its index', async () => {
    const { rows, nodes } = await explain('teams, first page', (db) =>
      pageTeams(db, { search: 'team 00', limit: 11 }),
    );
    expect(rows).toHaveLength(11);
    expect(rows.map((r) => r.name)).toEqual([...rows.map((r) => r.name)].sort());
    expect(nodes.some((n) => n['Node Type'] === 'Seq Scan' && n['Relation Name'] === 'team_members')).toBe(
      false,
    );
  });
});
