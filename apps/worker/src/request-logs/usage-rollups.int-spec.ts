import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { type Database, insertApiKey, insertTeam, rebuildUsageRollups, usageByDayAndModel } from '#libs/db';
import { type RequestLogJob } from '#libs/queue';
import { createRedis, type RedisClient, redisKeys } from '#libs/redis';
import { type Kysely } from 'kysely';
import {
  createTestDatabase,
  requestLogJob,
  seedUserWithKey,
  type TestDatabase,
} from '../../../../test/support/db.js';
import { dropRedisPrefix, TEST_REDIS_URL, uniqueRedisPrefix } from '../../../../test/support/redis.js';
import { PendingCharges } from '../quota/pending-charges.service.js';
import { RequestLogWriter } from './request-log.writer.js';

const prefix = uniqueRedisPrefix('usage-rollups');
let t: TestDatabase;
let redis: RedisClient;
let writer: RequestLogWriter;

const PRICES = {
  input: 3e9,
  output: 15e9,
  cacheRead: 3e8,
  cacheWrite5m: 375e7,
  cacheWrite1h: 6e9,
  tier: null,
  fallback: [],
};

/** Every measure of the rollups, summed over the whole table, and the same from the logs. */
const MEASURES = sql`sum(requests)::text as requests, sum(error_requests)::text as errors,
  sum(input_tokens)::text as input, sum(output_tokens)::text as output, sum(cached_tokens)::text as cached,
  sum(cache_write_5m_tokens)::text as w5, sum(cache_write_1h_tokens)::text as w1,
  sum(reasoning_tokens)::text as reasoning, sum(audio_input_tokens)::text as audio_in,
  sum(cached_audio_input_tokens)::text as audio_cached, sum(audio_output_tokens)::text as audio_out,
  sum(web_search_requests)::text as searches, sum(input_characters)::text as chars,
  sum(cost_nanos)::text as cost, sum(cache_savings_e6)::text as savings`;

const rollupTotals = async (db: Kysely<Database>) =>
  (await sql<Record<string, string>>`select ${MEASURES} from usage_hourly`.execute(db)).rows[0];

/** What the rollups must equal: the logs themselves, per hour and dimensions. */
async function rollupsFromLogs(db: Kysely<Database>) {
  const { rows } = await sql`
    select date_trunc('hour', started_at, 'UTC') as hour, user_id, team_id, key_id, model, provider_id,
      count(*)::text as requests, count(*) filter (where status >= 400)::text as errors,
      coalesce(sum(input_tokens), 0)::text as input, coalesce(sum(output_tokens), 0)::text as output,
      coalesce(sum(cached_tokens), 0)::text as cached, coalesce(sum(cost_nanos), 0)::text as cost,
      coalesce(sum(audio_output_tokens), 0)::text as audio_out
    from request_logs group by 1, 2, 3, 4, 5, 6 order by 1, 2, 3, 4, 5, 6`.execute(db);
  return rows;
}

async function storedRollups(db: Kysely<Database>) {
  const { rows } = await sql`
    select hour, user_id, team_id, key_id, model, provider_id, requests::text, error_requests::text as errors,
      input_tokens::text as input, output_tokens::text as output, cached_tokens::text as cached,
      cost_nanos::text as cost, audio_output_tokens::text as audio_out
    from usage_hourly order by 1, 2, 3, 4, 5, 6`.execute(db);
  return rows;
}

/** The usage report as it was computed before the rollups: straight from the logs. */
async function usageFromLogs(db: Kysely<Database>, userId: string, from: Date, to: Date) {
  const saved = sql`coalesce(cached_tokens, 0)::numeric * ((prices->>'input')::numeric - (prices->>'cacheRead')::numeric)
    + coalesce(cache_write_5m_tokens, 0)::numeric * ((prices->>'input')::numeric - (prices->>'cacheWrite5m')::numeric)
    + coalesce(cache_write_1h_tokens, 0)::numeric * ((prices->>'input')::numeric - (prices->>'cacheWrite1h')::numeric)`;
  const { rows } = await sql`
    select to_char(started_at at time zone 'UTC', 'YYYY-MM-DD') as day, model, count(*)::int as requests,
      coalesce(sum(input_tokens), 0)::text as input_tokens, coalesce(sum(output_tokens), 0)::text as output_tokens,
      coalesce(sum(cost_nanos), 0)::text as cost_nanos, coalesce(sum(cached_tokens), 0)::text as cached_tokens,
      coalesce(sum(coalesce(cache_write_5m_tokens, 0) + coalesce(cache_write_1h_tokens, 0)), 0)::text as cache_write_tokens,
      coalesce(round(sum(${saved}) / 1000000), 0)::text as cache_savings_nanos
    from request_logs
    where user_id = ${userId} and team_id is null
      and started_at >= ${from.toISOString()}::timestamptz and started_at < ${to.toISOString()}::timestamptz
    group by 1, 2 order by 1, 2`.execute(db);
  return rows;
}

/** A varied day of logs: two users (one also in a team), three keys, models, providers, errors, prices. */
async function seedLogs(): Promise<{ userId: string; jobs: RequestLogJob[] }> {
  const a = await seedUserWithKey(t.db);
  const b = await seedUserWithKey(t.db);
  const team = await insertTeam(t.db, {
    name: `t-${randomBytes(3).toString('hex')}`,
    groups: ['default'],
    createdBy: null,
  });
  const teamKey = await insertApiKey(t.db, {
    user_id: a.userId,
    team_id: team.id,
    key_hash: randomBytes(32).toString('hex'),
    display_prefix: 'sk-team...abcd',
    group_name: 'default',
  });
  const jobs: RequestLogJob[] = [];
  for (let i = 0; i < 240; i++) {
    const owner = i % 5 === 0 ? b : a;
    const keyId = i % 7 === 0 ? teamKey.id : owner.keyId;
    jobs.push(
      requestLogJob({
        // Spread over 2026-03-01 and -02, minutes and seconds off the hour.
        startedAt: new Date(Date.UTC(2026, 2, 1, 0, 0, 0) + i * 731_000 + (i % 3)).toISOString(),
        userId: owner.userId,
        keyId,
        model: ['mock-gpt', 'mock-claude', 'mock-gemini'][i % 3]!,
        providerId: i % 2 === 0 ? 'demo-openai' : 'demo-anthropic',
        status: i % 11 === 0 ? 502 : 200,
        costNanos: i % 11 === 0 ? 0 : 1_000_003 * (i + 1),
        usage:
          i % 13 === 0
            ? null
            : {
                inputTokens: 100 + i,
                outputTokens: 7 * i,
                cachedTokens: i % 4 === 0 ? 50 : 0,
                cacheWrite5mTokens: i % 6 === 0 ? 9 : 0,
                cacheWrite1hTokens: i % 9 === 0 ? 3 : 0,
                reasoningTokens: i % 2,
                audioOutputTokens: i % 10 === 0 ? 2 : 0,
              },
        prices: i % 2 === 0 ? PRICES : null,
      }),
    );
  }
  return { userId: a.userId, jobs };
}

beforeAll(async () => {
  t = await createTestDatabase('usage_rollups');
  redis = createRedis(TEST_REDIS_URL, { name: 'usage-rollups' });
  writer = new RequestLogWriter(t.db, new PendingCharges(redis, redisKeys(prefix)));
}, 30_000);
afterAll(async () => {
  redis.disconnect();
  await t.drop();
  await dropRedisPrefix(prefix);
});

describe('the hourly usage rollups the worker writes with the logs', () => {
  let userId: string;
  let jobs: RequestLogJob[];

  beforeAll(async () => {
    ({ userId, jobs } = await seedLogs());
  });

  it('count a redelivered or overlapping batch once: only the rows its insert stored', async () => {
    const first = jobs.slice(0, 150);
    const overlapping = jobs.slice(100);
    expect(await writer.writeBatch(first)).toEqual(first.map(() => null));
    const once = await rollupTotals(t.db);
    expect(once?.requests).toBe('150');
    // The same job redelivered: nothing moves.
    expect(await writer.writeBatch(first)).toEqual(first.map(() => null));
    expect(await rollupTotals(t.db)).toEqual(once);
    // A batch sharing 50 logs with the first, and two copies of it at once.
    await Promise.all([writer.writeBatch(overlapping), writer.writeBatch(overlapping)]);
    expect((await rollupTotals(t.db))?.requests).toBe(String(jobs.length));
    expect(await storedRollups(t.db)).toEqual(await rollupsFromLogs(t.db));
  });

  it('answer the usage report exactly as the logs do, for whole-hour and any other bounds', async () => {
    const ranges: Array<[string, string]> = [
      ['2026-03-01T00:00:00Z', '2026-03-03T00:00:00Z'], // whole days: rollups alone
      ['2026-03-01T05:17:23.456Z', '2026-03-02T13:42:00.001Z'], // two partial hours from the logs
      ['2026-03-01T10:05:00Z', '2026-03-01T10:55:00Z'], // inside one hour: the logs alone
      ['2026-02-01T00:00:00Z', '2026-04-01T00:00:00Z'],
    ];
    for (const [from, to] of ranges) {
      const expected = await usageFromLogs(t.db, userId, new Date(from), new Date(to));
      expect(expected.length).toBeGreaterThan(0);
      expect(await usageByDayAndModel(t.db, userId, new Date(from), new Date(to))).toEqual(expected);
    }
    const savings = await usageByDayAndModel(t.db, userId, new Date(ranges[0]![0]), new Date(ranges[0]![1]));
    expect(savings.some((r) => r.cache_savings_nanos !== '0')).toBe(true);
  });

  it('are rebuilt from the logs to the same sums, however wrong they were', async () => {
    const before = await storedRollups(t.db);
    await sql`update usage_hourly set requests = requests + 5, cost_nanos = 0`.execute(t.db);
    await sql`delete from usage_hourly where model = 'mock-gpt'`.execute(t.db);
    const { rows } = await rebuildUsageRollups(
      t.db,
      new Date('2026-03-01T00:30:00Z'), // widened to whole hours
      new Date('2026-03-03T00:40:00Z'),
    );
    expect(rows).toBe(before.length);
    expect(await storedRollups(t.db)).toEqual(before);
    expect(await storedRollups(t.db)).toEqual(await rollupsFromLogs(t.db));
  });

  it('leave the hours outside a rebuild alone', async () => {
    const extra = requestLogJob({ startedAt: '2026-03-05T12:00:00Z', userId, costNanos: 5 });
    await writer.writeBatch([extra]);
    await sql`update usage_hourly set cost_nanos = 999 where hour = '2026-03-05T12:00:00Z'`.execute(t.db);
    await rebuildUsageRollups(t.db, new Date('2026-03-01T00:00:00Z'), new Date('2026-03-04T00:00:00Z'));
    const { rows } = await sql<{ cost: string }>`
      select cost_nanos::text as cost from usage_hourly where hour = '2026-03-05T12:00:00Z'`.execute(t.db);
    expect(rows).toEqual([{ cost: '999' }]);
  });
});
