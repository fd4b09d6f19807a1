import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { type Redis } from 'ioredis';
import { sql } from 'kysely';
import OpenAI from 'openai';
import { getQuotaBalance } from '#libs/db';
import { createRedis, redisKeys } from '#libs/redis';
import { estimateInputTokens } from '../../apps/edge/src/pipeline/usage-estimate.js';
import { createTestDatabase, type TestDatabase } from '../support/db.js';
import { TEST_REDIS_URL } from '../support/redis.js';
import { type FaultStack, recordFigures, startFaultStack, storedCounts, waitUntil } from './fault-stack.js';

/**
 * kill -9 of an edge serving streams: each stream the client had begun to receive is logged and
 * charged exactly once, by estimate, once the worker sees the edge's heartbeat expire; the
 * balance moves by those charges in Postgres and in the edges' Redis copy. A stream that finished
 * normally leaves no marker behind.
 */
const CUT = 4;
const HEARTBEAT_TTL_MS = 2_000;
const SWEEP_INTERVAL_MS = 200;
const MESSAGES = [{ role: 'user' as const, content: 'Tell me a long story about a lighthouse keeper.' }];
/** testConfig's price: 1 credit per million input tokens = 1,000 nanocredits a token. */
const NANOS_PER_INPUT_TOKEN = 1_000;

let t: TestDatabase;
let stack: FaultStack;
let redis: Redis;
const keys = () => redisKeys(stack.env.redisPrefix);

beforeAll(async () => {
  t = await createTestDatabase('edge_kill_streams');
  stack = await startFaultStack({
    label: 'edge-kill-streams',
    databaseUrl: t.url,
    redisUrl: TEST_REDIS_URL,
    config: (c) => ({
      ...c,
      cut_streams: { heartbeat_ttl_ms: HEARTBEAT_TTL_MS, sweep_interval_ms: SWEEP_INTERVAL_MS },
    }),
  });
  redis = createRedis(TEST_REDIS_URL, { name: 'edge-kill-streams' });
  await stack.start('worker');
  await stack.start('edge');
}, 60_000);

afterAll(async () => {
  redis?.disconnect();
  await stack?.close();
  await t?.drop();
}, 60_000);

/** A streaming chat completion: resolves once its first chunk arrived; `rest` reads the remainder. */
async function openStream(client: OpenAI): Promise<{ requestId: string; rest: Promise<unknown> }> {
  const { data: stream, response } = await client.chat.completions
    .create({ model: 'mock-gpt', stream: true, messages: MESSAGES })
    .withResponse();
  const iterator = stream[Symbol.asyncIterator]();
  const first = await iterator.next();
  expect(first.done).toBe(false);
  const rest = (async () => {
    while (!(await iterator.next()).done);
  })();
  rest.catch(() => undefined); // the kill cuts it
  return { requestId: response.headers.get('x-request-id')!, rest };
}

/** The one edge instance this stack has run so far, and its open markers. */
async function edgeMarkers(): Promise<{ instance: string; open: string[] }> {
  const [instance] = await redis.zrange(keys().edges, '0', '-1');
  if (instance === undefined) return { instance: '', open: [] };
  return { instance, open: await redis.hkeys(keys().edgeStreams(instance)) };
}

async function balances(userId: string): Promise<{ durable: bigint; redis: bigint }> {
  const durable = BigInt((await getQuotaBalance(stack.db, userId))!.balance_nanos);
  return { durable, redis: BigInt((await redis.get(keys().quotaBalance(userId))) ?? '0') };
}

describe('edge killed with SIGKILL mid-stream', () => {
  it('logs and charges every cut stream once, by estimate, and moves the balance; a finished stream leaves no marker', async () => {
    const key = await stack.createKey();
    const edge = stack.apps.get('edge')!;
    const client = new OpenAI({ baseURL: `${edge.url}/v1`, apiKey: key.raw, maxRetries: 0 });

    stack.mock.setBehaviour({ chunkCount: 3, chunkIntervalMs: 0 });
    const finished = await openStream(client);
    await finished.rest;
    await waitUntil(
      'the finished stream logged and its marker cleared',
      async () =>
        (await storedCounts(stack.db, [finished.requestId])).charges.get(finished.requestId) === 1 &&
        !(await edgeMarkers()).open.includes(finished.requestId),
      15_000,
    );
    expect((await edgeMarkers()).open).toEqual([]);

    stack.mock.setBehaviour({ chunkCount: 200, chunkIntervalMs: 100 }); // 20 s streams
    const streams = await Promise.all(Array.from({ length: CUT }, () => openStream(client)));
    const ids = streams.map((s) => s.requestId);
    // Every stream has had bytes, so every marker was sent before them; wait for Redis to show them.
    await waitUntil(
      'markers of the running streams',
      async () => (await edgeMarkers()).open.length === CUT,
      5_000,
    );
    expect((await edgeMarkers()).open.sort()).toEqual([...ids].sort());
    const before = await balances(key.userId);

    const killedAt = Date.now();
    await edge.kill();
    stack.apps.delete('edge');
    const chargedMs = await waitUntil(
      'every cut stream logged and charged',
      async () => (await storedCounts(stack.db, ids)).charges.size === CUT,
      30_000,
    );
    const { logs, charges } = await storedCounts(stack.db, ids);
    expect(ids.map((id) => [logs.get(id), charges.get(id)])).toEqual(ids.map(() => [1, 1]));

    const inputTokens = estimateInputTokens({ messages: MESSAGES });
    const { rows } = await sql<{
      status: number;
      error_code: string;
      usage_estimated: boolean;
      input_tokens: number;
      output_tokens: number;
      cost_nanos: string;
      amount_nanos: string;
    }>`select l.status, l.error_code, l.usage_estimated, l.input_tokens, l.output_tokens, l.cost_nanos,
              c.amount_nanos
         from request_logs l join charges c using (request_id)
        where l.request_id = any(${ids})`.execute(stack.db);
    const cost = inputTokens * NANOS_PER_INPUT_TOKEN;
    expect(rows).toEqual(
      ids.map(() => ({
        status: 200,
        error_code: 'edge_died_mid_stream',
        usage_estimated: true,
        input_tokens: inputTokens,
        output_tokens: 0,
        cost_nanos: String(cost),
        amount_nanos: String(cost),
      })),
    );

    // Postgres and the edges' Redis copy both moved by exactly the estimates.
    const debited = BigInt(CUT * cost);
    await waitUntil(
      "the Redis copy rebuilt with the cut streams' charges",
      async () => (await balances(key.userId)).redis === before.redis - debited,
      5_000,
    );
    expect(await balances(key.userId)).toEqual({
      durable: before.durable - debited,
      redis: before.redis - debited,
    });
    // The dead edge is forgotten with its markers.
    await waitUntil('the dead edge dropped', async () => (await redis.zcard(keys().edges)) === 0, 5_000);

    recordFigures('edge-kill-streams', {
      cutStreams: CUT,
      heartbeatTtlMs: HEARTBEAT_TTL_MS,
      sweepIntervalMs: SWEEP_INTERVAL_MS,
      msFromKillToAllCharged: Date.now() - killedAt,
      chargedMs,
      estimatedInputTokensPerStream: inputTokens,
    });
  }, 120_000);
});
