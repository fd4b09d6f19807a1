import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Logger } from '@nestjs/common';
import { type Redis } from 'ioredis';
import { sql } from 'kysely';
import { Catalog } from '#libs/config';
import { parseConfig } from '#libs/gateway-config';
import { getQuotaBalance } from '#libs/db';
import { type StreamMarker } from '#libs/queue';
import { rebuildQuotas } from '#libs/quota';
import { createRedis, type RedisKeys, redisKeys } from '#libs/redis';
import {
  createTestDatabase,
  requestLogJob,
  seedUserWithKey,
  type TestDatabase,
} from '../../../../test/support/db.js';
import { dropRedisPrefix, TEST_REDIS_URL, uniqueRedisPrefix } from '../../../../test/support/redis.js';
import { PendingCharges } from '../quota/pending-charges.service.js';
import { QuotaReconciler } from '../quota/quota-reconciler.service.js';
import { RequestLogWriter } from '../request-logs/request-log.writer.js';
import { EDGE_DIED_MID_STREAM } from './cut-stream-log.js';
import { CutStreamSweeper, STALE_MARGIN_MS } from './cut-stream-sweeper.service.js';
import { EdgeStreams } from './edge-streams.store.js';

const prefix = uniqueRedisPrefix('sweeper');
const keys: RedisKeys = redisKeys(prefix);
/** 2 credits per million input tokens: 1,000 estimated tokens cost 2,000,000 nanocredits. */
const config = parseConfig({
  providers: [{ id: 'p', type: 'openai', base_url: 'http://127.0.0.1:1/v1', models: ['m'] }],
  models: [{ id: 'm', owned_by: 'o', created: 1, pricing: { input_per_million: 2, output_per_million: 8 } }],
  groups: { default: ['m'] },
});
const STALE_AFTER_MS = config.routing.total_timeout_ms + STALE_MARGIN_MS;
let t: TestDatabase;
let redis: Redis;
let writer: RequestLogWriter;

function sweeper(): CutStreamSweeper {
  return new CutStreamSweeper(
    new EdgeStreams(redis, keys),
    writer,
    new QuotaReconciler(t.db, redis, keys, config),
    config,
    new Catalog(config, {}),
  );
}

async function user(): Promise<{ userId: string; keyId: string }> {
  const seeded = await seedUserWithKey(t.db, { grantNanos: 1_000_000_000n });
  // The edges' copy is loaded, as it is once the user sent a request.
  await rebuildQuotas({ db: t.db, redis, keys }, [seeded.userId], { mode: 'seed' });
  return seeded;
}

let n = 0;
/** A marker as an edge writes it, stored under `instance`. */
async function marker(instance: string, owner: { userId: string; keyId: string }): Promise<StreamMarker> {
  const m: StreamMarker = {
    v: 1,
    requestId: `req_sweep_${++n}_${Date.now()}`,
    startedAt: new Date().toISOString(),
    keyId: owner.keyId,
    userId: owner.userId,
    group: 'default',
    endpoint: '/v1/chat/completions',
    model: 'm',
    providerId: 'p',
    upstreamModel: 'm',
    inputTokens: 1_000,
  };
  await redis.hset(keys.edgeStreams(instance), m.requestId, JSON.stringify(m));
  await redis.zadd(keys.edges, Date.now(), instance);
  return m;
}

async function stored(requestId: string) {
  const logs = await sql<{ error_code: string | null; usage_estimated: boolean; cost_nanos: string }>`
    select error_code, usage_estimated, cost_nanos from request_logs where request_id = ${requestId}`.execute(
    t.db,
  );
  const charges = await sql<{ amount_nanos: string }>`
    select amount_nanos from charges where request_id = ${requestId}`.execute(t.db);
  return { logs: logs.rows, charges: charges.rows.map((r) => Number(r.amount_nanos)) };
}

async function balances(userId: string): Promise<{ durable: number; redis: number }> {
  const durable = Number((await getQuotaBalance(t.db, userId))!.balance_nanos);
  return { durable, redis: Number(await redis.get(keys.quotaBalance(userId))) };
}

beforeAll(async () => {
  t = await createTestDatabase('sweeper');
  redis = createRedis(TEST_REDIS_URL, { name: 'sweeper' });
  writer = new RequestLogWriter(t.db, new PendingCharges(redis, keys));
  Logger.overrideLogger(['error']);
});
afterAll(async () => {
  redis.disconnect();
  await t.drop();
  await dropRedisPrefix(prefix);
});

describe('CutStreamSweeper', () => {
  it("charges a dead edge's markers by estimate, moves both balances and forgets the edge", async () => {
    const owner = await user();
    const cut = [await marker('dead-1', owner), await marker('dead-1', owner)];

    expect(await sweeper().sweep()).toEqual({ edges: 1, charged: 2 });

    for (const m of cut)
      expect(await stored(m.requestId)).toEqual({
        logs: [{ error_code: EDGE_DIED_MID_STREAM, usage_estimated: true, cost_nanos: '2000000' }],
        charges: [2_000_000],
      });
    const after = 1_000_000_000 - 2 * 2_000_000;
    expect(await balances(owner.userId)).toEqual({ durable: after, redis: after });
    expect(await redis.exists(keys.edgeStreams('dead-1'))).toBe(0);
    expect(await redis.zscore(keys.edges, 'dead-1')).toBeNull();
  });

  it("leaves a live edge's streams alone until no stream can still need them", async () => {
    const owner = await user();
    await redis.set(keys.edgeAlive('live-1'), '1', 'PX', 60_000);
    const running = await marker('live-1', owner);

    expect(await sweeper().sweep()).toEqual({ edges: 1, charged: 0 });
    expect(await stored(running.requestId)).toEqual({ logs: [], charges: [] });

    // Older than the longest stream plus the margin: its clear was lost; charged, edge kept.
    expect(await sweeper().sweep(Date.now() + STALE_AFTER_MS + 1)).toEqual({ edges: 1, charged: 1 });
    expect((await stored(running.requestId)).charges).toEqual([2_000_000]);
    expect(await redis.hlen(keys.edgeStreams('live-1'))).toBe(0);
    expect(await redis.zscore(keys.edges, 'live-1')).not.toBeNull();
  });

  it("keeps one row and one charge when the edge's own log comes after the estimate, or before it", async () => {
    const owner = await user();
    const late = await marker('dead-2', owner);
    const early = await marker('dead-2', owner);
    const ownLog = (m: StreamMarker) =>
      requestLogJob({
        requestId: m.requestId,
        startedAt: m.startedAt,
        userId: owner.userId,
        keyId: owner.keyId,
        stream: true,
        costNanos: 5_000_000,
      });
    // The edge's log of `early` landed before the sweep (its clear was lost with the edge).
    await writer.writeBatch([ownLog(early)]);

    expect((await sweeper().sweep()).charged).toBe(2); // `early` written again, and ignored
    // `late`'s log was spooled and replayed by the next edge after the sweep: ignored.
    expect(await writer.writeBatch([ownLog(late)])).toEqual([null]);

    expect(await stored(early.requestId)).toEqual({
      logs: [{ error_code: null, usage_estimated: false, cost_nanos: '5000000' }],
      charges: [5_000_000],
    });
    expect(await stored(late.requestId)).toEqual({
      logs: [{ error_code: EDGE_DIED_MID_STREAM, usage_estimated: true, cost_nanos: '2000000' }],
      charges: [2_000_000],
    });
    const after = 1_000_000_000 - 5_000_000 - 2_000_000;
    expect((await balances(owner.userId)).durable).toBe(after);
  });

  it('writes each cut stream once when worker replicas sweep at the same time', async () => {
    const owner = await user();
    const cut = await Promise.all([1, 2, 3].map(() => marker('dead-3', owner)));

    const [a, b] = await Promise.all([sweeper().sweep(), sweeper().sweep()]);
    expect(a.charged + b.charged).toBeGreaterThanOrEqual(3);

    for (const m of cut) expect((await stored(m.requestId)).charges).toEqual([2_000_000]);
    const after = 1_000_000_000 - 3 * 2_000_000;
    expect(await balances(owner.userId)).toEqual({ durable: after, redis: after });
  });
});
