import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { CompiledQuery, type Kysely, sql } from 'kysely';
import { createTestDatabase, type TestDatabase } from '../../../test/support/db.js';
import { type LogQuery, requestLogsPageQuery } from './console-logs.repository.js';
import { type Database } from './database.js';
import { completeLogIndexes } from './log-indexes.repository.js';
import * as m0021 from './migrations/0021_log_filter_indexes.js';
import { generateRequestLogs, logKeyId, logTeamId, logUserId } from './request-logs.generate.js';

// Issue 40: every filter of the console's log views is served by an index at 500k rows. Each case
// is the query a view sends (the member's and the team's views always add their account); the
// plan of the exact SQL the repository runs is the assertion, timings are reported.
const ROWS = 500_000;
const PAGE = 51; // the service asks for one row more than the page of 50
const NOW = new Date();
const DAY_AGO = new Date(NOW.getTime() - 86_400_000);
const HEAVY = logUserId(0); // 50k rows of its own
const LIGHT = logUserId(7);
const T0 = logTeamId(0); // half the heavy user's rows, and other members'
/** Rows a 51-row page may examine, whatever the filter: 1 % of the table. */
const MAX_EXAMINED = 5_000;

/**
 * [label, query, rows it may examine when not MAX_EXAMINED]. Two cases are bounded by their scope
 * rather than by their matches (docs/operations.md): a heavy user's errors (1.5k of their 50k rows:
 * the ordered scan stops early), and a team member's model filter (no 3-column index: the member's
 * rows in the team, 25k here, read in order until the page fills).
 */
type Case = readonly [label: string, query: Omit<LogQuery, 'limit'>, maxExamined?: number];
const CASES: readonly Case[] = [
  ['admin: no filter', {}],
  ['admin: last 24 h', { from: DAY_AGO }],
  ['admin: status 429', { status: 429 }],
  ['admin: status 404, last 24 h', { status: 404, from: DAY_AGO }],
  ['admin: status error', { status: 'error' }],
  ['admin: status ok', { status: 'ok' }],
  ['admin: rare model', { model: 'rare-model' }],
  ['admin: rare model, last 24 h', { model: 'rare-model', from: DAY_AGO }],
  ['admin: common model', { model: 'gpt-4o' }],
  ['admin: one key', { keyId: logKeyId(7, 1) }],
  ['admin: one light user', { userId: LIGHT }],
  ['admin: a light team', { teamId: logTeamId(5) }],
  ['admin: the heavy team', { teamId: T0 }],
  ['member (heavy): no filter', { userId: HEAVY }],
  ['member (heavy): status 429', { userId: HEAVY, status: 429 }],
  ['member (heavy): status error', { userId: HEAVY, status: 'error' }, 50_000],
  ['member (heavy): model rare for them', { userId: HEAVY, model: 'claude-sonnet' }],
  ['member (heavy): rare model', { userId: HEAVY, model: 'rare-model' }],
  ['member (heavy): their team key', { userId: HEAVY, keyId: logKeyId(0, 1) }],
  ['member (heavy): status 429, last 24 h', { userId: HEAVY, status: 429, from: DAY_AGO }],
  ['member (light): status 429', { userId: LIGHT, status: 429 }],
  ['member (light): rare model', { userId: LIGHT, model: 'rare-model' }],
  ['team admin (heavy team): no filter', { teamId: T0 }],
  ['team admin (heavy team): status 429', { teamId: T0, status: 429 }],
  ['team admin (heavy team): rare model', { teamId: T0, model: 'rare-model' }],
  ['team admin (heavy team): a non-member', { teamId: T0, userId: logUserId(5) }],
  ['team member (heavy): no filter', { teamId: T0, userId: HEAVY }],
  ['team member (heavy): status 429', { teamId: T0, userId: HEAVY, status: 429 }],
  ['team member (heavy): model rare for them', { teamId: T0, userId: HEAVY, model: 'claude-sonnet' }, 25_000],
];

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  'Actual Rows'?: number;
  'Actual Loops'?: number;
  'Rows Removed by Filter'?: number;
  'Rows Removed by Index Recheck'?: number;
  Plans?: PlanNode[];
}
interface Explained {
  readonly ms: number;
  readonly seqScans: string[];
  readonly indexes: string[];
  readonly examined: number;
}

const SCANS = /^(Seq Scan|Index Scan|Index Only Scan|Bitmap Heap Scan)$/;
const nodes = (n: PlanNode): PlanNode[] => [n, ...(n.Plans ?? []).flatMap(nodes)];

async function explain(
  db: Kysely<Database>,
  q: Omit<LogQuery, 'limit'>,
  empty: Set<string>,
): Promise<Explained> {
  const c = requestLogsPageQuery(db, { ...q, limit: PAGE }).compile();
  const { rows } = await db.executeQuery<{ 'QUERY PLAN': [{ Plan: PlanNode; 'Execution Time': number }] }>(
    CompiledQuery.raw(`explain (analyze, format json) ${c.sql}`, [...c.parameters]),
  );
  const [{ Plan, 'Execution Time': ms }] = rows[0]!['QUERY PLAN'];
  const all = nodes(Plan);
  const scans = all.filter((n) => SCANS.test(n['Node Type']));
  return {
    ms,
    seqScans: scans
      .filter((n) => n['Node Type'] === 'Seq Scan' && !empty.has(n['Relation Name'] ?? ''))
      .map((n) => n['Relation Name'] ?? '?'),
    indexes: [
      ...new Set(
        all.flatMap((n) =>
          n['Index Name'] ? [n['Index Name'].replace(/^request_logs_(p\d{4}_\d{2}|default)_/, '')] : [],
        ),
      ),
    ],
    examined: scans.reduce(
      (sum, n) =>
        sum +
        ((n['Actual Rows'] ?? 0) +
          (n['Rows Removed by Filter'] ?? 0) +
          (n['Rows Removed by Index Recheck'] ?? 0)) *
          (n['Actual Loops'] ?? 1),
      0,
    ),
  };
}

let t: TestDatabase;
const report: string[] = [];
const before = new Map<string, Explained>();
let empty = new Set<string>();

beforeAll(async () => {
  t = await createTestDatabase('log-scale');
  await m0021.down(t.db); // the state before issue 40, to measure against
  let started = performance.now();
  const { partitions } = await generateRequestLogs(t.db, { rows: ROWS, days: 90, now: NOW });
  report.push(
    `generated ${ROWS} rows in ${partitions.length} partitions: ${Math.round(performance.now() - started)} ms`,
  );
  const { rows } = await sql<{ name: string }>`
    select c.relname as name from pg_inherits i join pg_class c on c.oid = i.inhrelid
    where i.inhparent = 'request_logs'::regclass and c.reltuples <= 0`.execute(t.db);
  empty = new Set(rows.map((r) => r.name));
  started = performance.now();
  for (const [label, q] of CASES) before.set(label, await explain(t.db, q, empty));
  report.push(`plans before 0021: ${Math.round(performance.now() - started)} ms`);

  started = performance.now();
  await t.db.transaction().execute((trx) => m0021.up(trx)); // as the migrator runs it
  const inMigration = performance.now() - started;
  const invalid = await sql<{ n: number }>`select count(*)::int as n from pg_index
    where indrelid = 'request_logs'::regclass and not indisvalid`.execute(t.db);
  started = performance.now();
  const built = await completeLogIndexes(t.db);
  report.push(
    `migration 0021: ${Math.round(inMigration)} ms in its transaction (${invalid.rows[0]?.n} parent indexes left invalid), ` +
      `then ${built.length} partition indexes built concurrently in ${Math.round(performance.now() - started)} ms`,
  );
  await sql`analyze request_logs`.execute(t.db);
}, 180_000);

afterAll(async () => {
  console.info(
    ['request_logs at 500k rows (ms before -> after, rows examined, index):', ...report].join('\n'),
  );
  await t.drop();
});

describe('console log filters at 500k rows', () => {
  it('completes every index on every partition, so the parents are valid', async () => {
    const { rows } = await sql<{ name: string }>`select c.relname as name from pg_index x
      join pg_class c on c.oid = x.indexrelid
      where x.indrelid = 'request_logs'::regclass and not x.indisvalid`.execute(t.db);
    expect(rows).toEqual([]);
    expect(await completeLogIndexes(t.db)).toEqual([]);
  });

  // Every row complete: jest passes `done` in place of a missing last element.
  const cases = CASES.map(([label, q, max]) => [label, q, max ?? MAX_EXAMINED] as const);
  it.each(cases)('%s: read through an index, a bounded number of rows', async (label, q, max) => {
    await explain(t.db, q, empty); // warm
    const after = await explain(t.db, q, empty);
    const b = before.get(label)!;
    report.push(
      `${label}: ${b.ms.toFixed(1)} -> ${after.ms.toFixed(1)} ms, ${b.examined} -> ${after.examined} rows, ${after.indexes.join(' + ')}`,
    );
    expect(after.seqScans).toEqual([]);
    expect(after.indexes.length).toBeGreaterThan(0);
    expect(after.examined).toBeLessThanOrEqual(max);
    // Loose: the target is 25 ms; a shared CI machine gets four times that before this fails.
    if (max === MAX_EXAMINED) expect(after.ms).toBeLessThan(100);
  });
});
