import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdirSync, writeFileSync } from 'node:fs';
import { sql } from 'kysely';
import { ensureLogPartitions, rebuildUsageRollups, usageByDayAndModel, usageQuery } from '#libs/db';
import { createTestDatabase, type TestDatabase } from '../../../../test/support/db.js';

/**
 * Issue 40's target: a heavy user's 30-day usage (50,000 rows of its own) in under 20 ms, at the
 * same cost whatever the size of request_logs. The rows are generated in SQL (generate_series),
 * the rollups built by the rebuild, and the plan read with EXPLAIN. Figures go to
 * test-results/usage-rollups-scale.json.
 */
const HEAVY = '00000000-0000-4000-8000-00000000beef';
const FROM = new Date('2026-01-01T00:00:00Z');
const TO = new Date('2026-01-31T00:00:00Z');
const HEAVY_ROWS = 50_000;
const OTHER_USERS = 100;
const OTHER_ROWS_EACH = 1_500;

let t: TestDatabase;
const figures: Record<string, unknown> = {};

/** Inserts `n` logs per user of `users` over the 30 days, two keys (one null) and two models each. */
async function generate(users: string, n: number, tag: string): Promise<number> {
  const started = performance.now();
  await sql`
    insert into request_logs (request_id, started_at, user_id, key_id, endpoint, model, provider_id, stream,
      status, latency_ms, input_tokens, output_tokens, cached_tokens, cost_nanos, prices)
    select ${tag} || u.i || '_' || g, ${FROM.toISOString()}::timestamptz + (g * (2592000.0 / ${n})) * interval '1 second',
      u.id, case when g % 2 = 0 then u.id end, '/v1/chat/completions',
      case when g % 3 = 0 then 'mock-claude' else 'mock-gpt' end, 'demo-openai', false,
      case when g % 50 = 0 then 502 else 200 end, 20, 100 + g % 50, 30 + g % 20, g % 40, 1000 + g % 7,
      case when g % 2 = 0 then '{"input":3000000000,"cacheRead":300000000,"cacheWrite5m":3750000000,"cacheWrite1h":6000000000}'::jsonb end
    from (${sql.raw(users)}) as u(i, id), generate_series(0, ${n - 1}) as g`.execute(t.db);
  return performance.now() - started;
}

async function rollUpAndAnalyze(): Promise<number> {
  const started = performance.now();
  await rebuildUsageRollups(t.db, FROM, new Date('2026-02-01T00:00:00Z'));
  const ms = performance.now() - started;
  await sql`analyze request_logs`.execute(t.db);
  await sql`analyze usage_hourly`.execute(t.db);
  return ms;
}

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  'Shared Hit Blocks'?: number;
  'Shared Read Blocks'?: number;
  Plans?: PlanNode[];
}

const nodes = (p: PlanNode): PlanNode[] => [p, ...(p.Plans ?? []).flatMap(nodes)];

async function explain(from: Date, to: Date): Promise<{ nodes: PlanNode[]; blocks: number }> {
  const query = usageQuery(HEAVY, from, to)!;
  const { rows } = await sql<{ 'QUERY PLAN': Array<{ Plan: PlanNode }> }>`
    explain (analyze, buffers, format json) ${query}`.execute(t.db);
  const plan = rows[0]!['QUERY PLAN'][0]!.Plan;
  return {
    nodes: nodes(plan),
    blocks: (plan['Shared Hit Blocks'] ?? 0) + (plan['Shared Read Blocks'] ?? 0),
  };
}

/** Median of 7 timed runs, after one warm-up. */
async function timeUsage(from: Date, to: Date): Promise<number> {
  await usageByDayAndModel(t.db, HEAVY, from, to);
  const runs: number[] = [];
  for (let i = 0; i < 7; i++) {
    const started = performance.now();
    await usageByDayAndModel(t.db, HEAVY, from, to);
    runs.push(performance.now() - started);
  }
  return runs.sort((a, b) => a - b)[3]!;
}

/** The same report summed from the logs, as before the rollups: for comparison only. */
async function timeFromLogs(): Promise<number> {
  const run = () =>
    sql`select to_char(started_at at time zone 'UTC', 'YYYY-MM-DD'), model, count(*), sum(input_tokens),
        sum(output_tokens), sum(cost_nanos), sum(cached_tokens)
      from request_logs where user_id = ${HEAVY} and team_id is null
        and started_at >= ${FROM.toISOString()}::timestamptz and started_at < ${TO.toISOString()}::timestamptz
      group by 1, 2 order by 1, 2`.execute(t.db);
  await run();
  const runs: number[] = [];
  for (let i = 0; i < 5; i++) {
    const started = performance.now();
    await run();
    runs.push(performance.now() - started);
  }
  return runs.sort((a, b) => a - b)[2]!;
}

beforeAll(async () => {
  t = await createTestDatabase('usage_scale');
  await ensureLogPartitions(t.db, FROM, 1);
}, 60_000);
afterAll(async () => {
  mkdirSync('test-results', { recursive: true });
  writeFileSync('test-results/usage-rollups-scale.json', `${JSON.stringify(figures, null, 2)}\n`);
  await t.drop();
});

describe("a heavy user's 30-day usage at scale", () => {
  it('reads only its rollup rows, through an index, at the same cost as request_logs grows', async () => {
    figures.heavyGenerateMs = await generate(`select 0, '${HEAVY}'::uuid`, HEAVY_ROWS, 'h');
    figures.heavyRollupMs = await rollUpAndAnalyze();
    const small = await explain(FROM, TO);
    figures.rowsSmall = HEAVY_ROWS;
    figures.usageMsSmall = await timeUsage(FROM, TO);
    figures.blocksSmall = small.blocks;

    const others = `select i, md5('other' || i)::uuid from generate_series(1, ${OTHER_USERS}) as i`;
    figures.othersGenerateMs = await generate(others, OTHER_ROWS_EACH, 'o');
    figures.othersRollupMs = await rollUpAndAnalyze();
    const large = await explain(FROM, TO);
    figures.rowsLarge = HEAVY_ROWS + OTHER_USERS * OTHER_ROWS_EACH;
    figures.usageMsLarge = await timeUsage(FROM, TO);
    figures.blocksLarge = large.blocks;
    figures.fromLogsMsLarge = await timeFromLogs();
    figures.rollupRowsOfHeavy = Number(
      (
        await sql<{ n: string }>`select count(*) as n from usage_hourly where user_id = ${HEAVY}`.execute(
          t.db,
        )
      ).rows[0]?.n,
    );

    // Never request_logs; alone in its table, the heavy user's rollup may be read whole.
    expect(
      small.nodes.filter((n) => n['Relation Name'] !== undefined).map((n) => n['Relation Name']),
    ).toEqual(['usage_hourly']);
    for (const plan of [large]) {
      const scans = plan.nodes.filter((n) => n['Relation Name'] !== undefined);
      // The rollup, through its account index: an index scan, or a bitmap of it.
      expect(scans.length).toBeGreaterThan(0);
      expect(scans.every((n) => n['Relation Name'] === 'usage_hourly')).toBe(true);
      expect(scans.every((n) => /^(Index Scan|Index Only Scan|Bitmap Heap Scan)$/.test(n['Node Type']))).toBe(
        true,
      );
      expect(plan.nodes.some((n) => n['Index Name'] === 'usage_hourly_user_idx')).toBe(true);
    }
    figures.planLarge = large.nodes.map((n) => [n['Node Type'], n['Relation Name'] ?? n['Index Name'] ?? '']);
    // At most one page per rollup row of the account (its rows interleave with other accounts'
    // hour by hour) plus the index: bounded by the account's active hours, not by the logs.
    expect(large.blocks).toBeLessThanOrEqual((figures.rollupRowsOfHeavy as number) + 100);
    // The target is 20 ms; a loaded shared CI machine gets twice that before this fails.
    expect(figures.usageMsLarge as number).toBeLessThan(40);
    const rows = await usageByDayAndModel(t.db, HEAVY, FROM, TO);
    expect(rows.reduce((n, r) => n + r.requests, 0)).toBe(
      Number(
        (
          await sql<{ n: string }>`select count(*) as n from request_logs
            where user_id = ${HEAVY} and started_at < ${TO.toISOString()}::timestamptz`.execute(t.db)
        ).rows[0]?.n,
      ),
    );
  }, 120_000);

  it('reads at most the partial hours of an unaligned range from request_logs, through an index', async () => {
    const plan = await explain(new Date('2026-01-01T10:20:00Z'), new Date('2026-01-30T22:05:00Z'));
    const scans = plan.nodes.filter((n) => n['Relation Name'] !== undefined);
    const logScans = scans.filter((n) => n['Relation Name']!.startsWith('request_logs'));
    expect(logScans.length).toBeGreaterThan(0);
    expect(logScans.every((n) => /Index/.test(n['Node Type']))).toBe(true);
    expect(scans.some((n) => n['Relation Name'] === 'usage_hourly')).toBe(true);
    figures.unalignedMs = await timeUsage(new Date('2026-01-01T10:20:00Z'), new Date('2026-01-30T22:05:00Z'));
  });
});
