import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { sql } from 'kysely';
import { createTestDatabase, requestLogJob, type TestDatabase } from '../../../test/support/db.js';
import { type LogCursor, listRequestLogs } from './console-logs.repository.js';
import { insertRequestLogs } from './request-logs.repository.js';
import { usageByDayAndModel } from './usage-rollups.repository.js';

const U1 = '00000000-0000-4000-8000-0000000000a1';
const U2 = '00000000-0000-4000-8000-0000000000a2';
const K1 = '00000000-0000-4000-8000-0000000000b1';

let t: TestDatabase;
beforeAll(async () => {
  t = await createTestDatabase('console-logs');
  const jobs = [];
  // 23 requests of U1 over two days, several sharing one start time (ties the cursor must break),
  // statuses and models mixed; 5 of U2 interleaved.
  for (let i = 0; i < 23; i++) {
    const startedAt = new Date(Date.UTC(2026, 0, 1 + (i % 2), 10, 0, Math.floor(i / 4))).toISOString();
    jobs.push(
      requestLogJob({
        requestId: `req_u1_${String(i).padStart(2, '0')}`,
        startedAt,
        userId: U1,
        keyId: i % 3 === 0 ? K1 : null,
        model: i % 2 === 0 ? 'mock-gpt' : 'mock-claude',
        status: i % 5 === 0 ? 502 : 200,
        costNanos: 1_000_000_000 + i,
        usage: {
          inputTokens: 10,
          outputTokens: 20 + i,
          cachedTokens: 0,
          cacheWrite5mTokens: 0,
          cacheWrite1hTokens: 0,
          reasoningTokens: 0,
        },
      }),
    );
  }
  for (let i = 0; i < 5; i++)
    jobs.push(requestLogJob({ requestId: `req_u2_${i}`, startedAt: '2026-01-01T10:00:00.000Z', userId: U2 }));
  await insertRequestLogs(t.db, jobs);
});
afterAll(async () => {
  await t.drop();
});

async function pageThrough(query: {
  userId?: string;
  limit: number;
  status?: 'ok' | 'error';
}): Promise<string[]> {
  const seen: string[] = [];
  let cursor: LogCursor | undefined;
  for (let pages = 0; pages < 100; pages++) {
    const rows = await listRequestLogs(t.db, { ...query, cursor, limit: query.limit });
    seen.push(...rows.map((r) => r.request_id));
    if (rows.length < query.limit) return seen;
    const last = rows.at(-1)!;
    cursor = { startedAt: last.started_at_exact, requestId: last.request_id };
  }
  throw new Error('pagination did not end');
}

describe('console log queries', () => {
  it('page through every row exactly once, newest first, ties broken by request id', async () => {
    const paged = await pageThrough({ userId: U1, limit: 4 });
    const all = await t.db
      .selectFrom('request_logs')
      .select('request_id')
      .where('user_id', '=', U1)
      .orderBy('started_at', 'desc')
      .orderBy('request_id', 'desc')
      .execute();
    expect(paged).toEqual(all.map((r) => r.request_id));
    expect(new Set(paged).size).toBe(23);
  });

  it('page through every user for admins, and through a status class', async () => {
    expect(await pageThrough({ limit: 7 })).toHaveLength(28);
    const errors = await pageThrough({ userId: U1, limit: 2, status: 'error' });
    expect(errors.sort()).toEqual(['req_u1_00', 'req_u1_05', 'req_u1_10', 'req_u1_15', 'req_u1_20']);
  });

  it('filter by time range (from inclusive, to exclusive), model, key and exact status', async () => {
    const day2 = await listRequestLogs(t.db, {
      userId: U1,
      from: new Date('2026-01-02T00:00:00Z'),
      to: new Date('2026-01-03T00:00:00Z'),
      limit: 100,
    });
    expect(day2).toHaveLength(11);
    const rows = await listRequestLogs(t.db, {
      userId: U1,
      model: 'mock-gpt',
      keyId: K1,
      status: 502,
      limit: 100,
    });
    expect(rows.map((r) => r.request_id).sort()).toEqual(['req_u1_00']);
  });

  it('read pages from indexes, without sorting every row of the range', async () => {
    const plan = (query: ReturnType<typeof sql>) =>
      t.db.transaction().execute(async (trx) => {
        // Tiny test tables would be scanned sequentially; what matters is that an index can serve.
        await sql`set local enable_seqscan = off`.execute(trx);
        const { rows } = await sql<{ 'QUERY PLAN': string }>`explain ${query}`.execute(trx);
        return rows.map((r) => r['QUERY PLAN']).join('\n');
      });
    const own = await plan(sql`select * from request_logs where user_id = ${U1}
      order by started_at desc, request_id desc limit 51`);
    expect(own).toMatch(/Index Scan/);
    expect(own).not.toMatch(/Seq Scan/);
    const everyone = await plan(sql`select * from request_logs
      where (started_at, request_id) < ('2026-01-02T10:00:00Z'::timestamptz, 'req_x')
      order by started_at desc, request_id desc limit 51`);
    expect(everyone).toMatch(/Index Scan/);
    expect(everyone).not.toMatch(/Sort {2}\(cost/); // a Sort node, not the Merge Append's Sort Key
  });

  it('sum usage per UTC day and model', async () => {
    const rows = await usageByDayAndModel(
      t.db,
      U1,
      new Date('2026-01-01T00:00:00Z'),
      new Date('2026-01-03T00:00:00Z'),
    );
    expect(rows.map((r) => [r.day, r.model, r.requests])).toEqual([
      ['2026-01-01', 'mock-gpt', 12],
      ['2026-01-02', 'mock-claude', 11],
    ]);
    const gpt = rows[0]!;
    expect(gpt.input_tokens).toBe('120');
    // Even i from 0 to 22: outputs 20 + i, costs 1e9 + i.
    expect(gpt.output_tokens).toBe(String(12 * 20 + 132));
    expect(gpt.cost_nanos).toBe(String(12 * 1_000_000_000 + 132));
  });
});
