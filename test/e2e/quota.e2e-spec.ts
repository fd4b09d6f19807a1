import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Queue } from 'bullmq';
import { type GatewayConfigInput } from '#libs/config';
import OpenAI, { APIError } from 'openai';
import { displayPrefix, generateApiKey, hashApiKey } from '#libs/auth';
import { findOrCreateUserByEmail, getQuotaBalance, insertApiKey, ledgerBalance } from '#libs/db';
import {
  REQUEST_LOG_BATCH_JOB,
  REQUEST_LOG_JOB_OPTIONS,
  REQUEST_LOG_QUEUE,
  type RequestLogJob,
} from '#libs/queue';
import { grantCredits, type QuotaDeps } from '#libs/quota';
import { createRedis, deleteKeys, duplicateRedis, type RedisClient, redisKeys, scanKeys } from '#libs/redis';
import { requestLogJob } from '../support/db.js';
import { eventually, type Gateway, startGateway, testConfigWithAnthropic } from '../support/gateway.js';

let gw: Gateway;
let redis: RedisClient;
let deps: QuotaDeps;
let n = 0;

/** The test config plus an Anthropic provider (native /v1/messages) and a fast reconciliation sweep. */
function config(mockUrl: string): GatewayConfigInput {
  return { ...testConfigWithAnthropic(mockUrl), quota: { reconcile_interval_ms: 250 } };
}

beforeAll(async () => {
  gw = await startGateway('e2e-quota', config);
  redis = createRedis(gw.env.redis, { name: 'e2e-quota' });
  deps = { db: gw.db.db, redis, keys: redisKeys(gw.env.redisPrefix) };
}, 30_000);

afterAll(async () => {
  redis?.disconnect();
  await gw?.close();
});

interface TestKey {
  readonly raw: string;
  readonly userId: string;
  readonly keyId: string;
  readonly client: OpenAI;
}

/** A new user holding `nanos` and one key of group default; the SDK never retries, so each 429 shows. */
async function keyWithBalance(nanos: bigint): Promise<TestKey> {
  const { user } = await findOrCreateUserByEmail(gw.db.db, `quota-${++n}@example.com`, nanos);
  const raw = generateApiKey();
  const key = await insertApiKey(gw.db.db, {
    user_id: user.id,
    name: 'quota',
    key_hash: hashApiKey(raw),
    display_prefix: displayPrefix(raw),
    group_name: 'default',
  });
  const client = new OpenAI({ baseURL: `${gw.edgeUrl}/v1`, apiKey: raw, maxRetries: 0 });
  return { raw, userId: user.id, keyId: key.id, client };
}

const live = async (userId: string): Promise<bigint | null> => {
  const v = await redis.get(deps.keys.quotaBalance(userId));
  return v === null ? null : BigInt(v);
};
const durable = async (userId: string): Promise<bigint> =>
  BigInt((await getQuotaBalance(gw.db.db, userId))?.balance_nanos ?? 0);

/** Settling is fire and forget after the response: wait until the edge's debit shows in Redis. */
const spent = (userId: string): Promise<true> =>
  eventually(async () => ((await live(userId)) !== null && (await live(userId))! <= 0n ? true : undefined));

/** Until the worker has settled every charge of the user (its pending set in Redis is empty). */
const settled = (userId: string, charges: number): Promise<true> =>
  eventually(async () => {
    const rows = await gw.db.db
      .selectFrom('charges')
      .select('request_id')
      .where('user_id', '=', userId)
      .execute();
    const pending = await redis.hlen(deps.keys.quotaPending(userId));
    return rows.length === charges && pending === 0 ? true : undefined;
  }, 10_000);

/** Model calls the mock received (its probes excluded); the stats survive the request log's truncation. */
const upstreamCalls = (): number =>
  Object.entries(gw.mock.stats.byPath)
    .filter(([path]) => !path.endsWith('/models'))
    .reduce((sum, [, count]) => sum + count, 0);

interface Endpoint {
  readonly name: string;
  readonly path: string;
  readonly body: Record<string, unknown>;
  call(c: OpenAI): Promise<unknown>;
}

const ENDPOINTS: readonly Endpoint[] = [
  {
    name: 'chat',
    path: '/v1/chat/completions',
    body: { model: 'mock-gpt', messages: [{ role: 'user', content: 'Hi' }] },
    call: (c) =>
      c.chat.completions.create({ model: 'mock-gpt', messages: [{ role: 'user', content: 'Hi' }] }),
  },
  {
    name: 'chat (stream)',
    path: '/v1/chat/completions',
    body: { model: 'mock-gpt', stream: true, messages: [{ role: 'user', content: 'Hi' }] },
    call: async (c) => {
      const stream = await c.chat.completions.create({
        model: 'mock-gpt',
        stream: true,
        messages: [{ role: 'user', content: 'Hi' }],
      });
      for await (const _ of stream);
    },
  },
  {
    name: 'completions',
    path: '/v1/completions',
    body: { model: 'mock-gpt', prompt: 'Hi' },
    call: (c) => c.completions.create({ model: 'mock-gpt', prompt: 'Hi' }),
  },
  {
    name: 'responses',
    path: '/v1/responses',
    body: { model: 'mock-gpt', input: 'Hi' },
    call: (c) => c.responses.create({ model: 'mock-gpt', input: 'Hi' }),
  },
  {
    name: 'embeddings',
    path: '/v1/embeddings',
    body: { model: 'mock-gpt', input: 'Hi' },
    call: (c) => c.embeddings.create({ model: 'mock-gpt', input: 'Hi' }),
  },
];

async function sdkError(p: Promise<unknown>): Promise<APIError> {
  try {
    await p;
  } catch (err) {
    if (err instanceof APIError) return err;
    throw err;
  }
  throw new Error('the request succeeded');
}

describe('insufficient_quota', () => {
  it.each(ENDPOINTS.map((e) => [e.name, e] as const))(
    '%s: one request spends a tiny balance, the next gets 429 insufficient_quota (shape A) without reaching the provider',
    async (_name, endpoint) => {
      const key = await keyWithBalance(1n);
      await endpoint.call(key.client);
      await spent(key.userId);
      const upstreamBefore = upstreamCalls();

      const err = await sdkError(endpoint.call(key.client));
      expect(err.status).toBe(429);
      expect(err.code).toBe('insufficient_quota');
      expect(err.type).toBe('insufficient_quota');

      const res = await fetch(`${gw.edgeUrl}${endpoint.path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key.raw}`, 'content-type': 'application/json' },
        body: JSON.stringify(endpoint.body),
      });
      expect(res.status).toBe(429);
      expect(res.headers.get('retry-after')).toBeNull();
      expect(res.headers.get('x-request-id')).toMatch(/^req_/);
      expect(await res.json()).toEqual({
        error: {
          message: expect.stringMatching(/quota/),
          type: 'insufficient_quota',
          code: 'insufficient_quota',
          param: null,
        },
      });
      expect(upstreamCalls()).toBe(upstreamBefore);
    },
  );

  it.each([
    ['native, to an Anthropic provider', 'mock-claude'],
    ['translated, to an OpenAI provider', 'mock-gpt'],
  ])('/v1/messages (%s): 429 insufficient_quota in shape B', async (_name, model) => {
    const key = await keyWithBalance(1n);
    const anthropic = new Anthropic({ baseURL: gw.edgeUrl, apiKey: key.raw, maxRetries: 0 });
    const hello = { model, max_tokens: 50, messages: [{ role: 'user' as const, content: 'Hi' }] };
    expect((await anthropic.messages.create(hello)).type).toBe('message');
    await spent(key.userId);
    const upstreamBefore = upstreamCalls();

    const err = await anthropic.messages.create(hello).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Anthropic.APIError);
    const apiErr = err as InstanceType<typeof Anthropic.APIError>;
    expect(apiErr.status).toBe(429);
    expect(apiErr.error).toEqual({
      type: 'error',
      error: { type: 'insufficient_quota', message: expect.stringMatching(/quota/) },
    });

    const res = await fetch(`${gw.edgeUrl}/v1/messages`, {
      method: 'POST',
      headers: {
        'x-api-key': key.raw,
        'anthropic-version': '2023-06-01',
        'content-type': 'application/json',
      },
      body: JSON.stringify(hello),
    });
    expect(res.status).toBe(429);
    expect(await res.json()).toEqual({
      type: 'error',
      error: { type: 'insufficient_quota', message: expect.any(String) },
    });
    expect(upstreamCalls()).toBe(upstreamBefore);
  });

  it('a grant raises the balance and the key works again at once', async () => {
    const key = await keyWithBalance(1n);
    await ENDPOINTS[0]!.call(key.client);
    await spent(key.userId);
    expect((await sdkError(ENDPOINTS[0]!.call(key.client))).code).toBe('insufficient_quota');
    const balance = await grantCredits(deps, {
      userId: key.userId,
      nanos: 1_000_000_000n,
      grantedBy: null,
      note: 'e2e',
    });
    expect(balance).toBeGreaterThan(0n);
    await expect(ENDPOINTS[0]!.call(key.client)).resolves.toBeDefined();
  });

  it('a key at its own spend limit is refused while its owner still has credits', async () => {
    const key = await keyWithBalance(1_000_000_000n);
    await gw.db.db
      .updateTable('api_keys')
      .set({ spend_limit_nanos: 1 })
      .where('id', '=', key.keyId)
      .execute();
    await ENDPOINTS[2]!.call(key.client);
    await eventually(async () =>
      (await redis.hget(deps.keys.quotaKeySpent(key.userId), key.keyId)) !== null ? true : undefined,
    );
    const err = await sdkError(ENDPOINTS[2]!.call(key.client));
    expect(err.code).toBe('insufficient_quota');
    expect(err.message).toMatch(/spending limit/);
  });
});

describe('concurrency: admit while positive', () => {
  /** Cost of each logged request of the user, from request_logs (what the worker charged). */
  async function costs(userId: string): Promise<bigint[]> {
    const rows = await gw.db.db
      .selectFrom('request_logs')
      .select('cost_nanos')
      .where('user_id', '=', userId)
      .execute();
    return rows.map((r) => BigInt(r.cost_nanos));
  }

  it('200 parallel requests overdraw by no more than the cost of the requests in flight', async () => {
    // Enough for about three requests; all 200 are in flight together.
    gw.mock.setBehaviour({ latencyMs: 30 });
    try {
      const key = await keyWithBalance(60_000n);
      const results = await Promise.allSettled(
        Array.from({ length: 200 }, () => ENDPOINTS[0]!.call(key.client)),
      );
      const ok = results.filter((r) => r.status === 'fulfilled').length;
      const refused = results.filter(
        (r) =>
          r.status === 'rejected' && r.reason instanceof APIError && r.reason.code === 'insufficient_quota',
      ).length;
      expect(ok + refused).toBe(200);
      await settled(key.userId, ok);
      const charged = await costs(key.userId);
      const maxCost = charged.reduce((a, b) => (b > a ? b : a), 0n);
      const balance = await durable(key.userId);
      // The bound (docs/quota.md): overdraw < sum of the costs of requests in flight when the balance
      // reached zero <= (requests in flight) x (largest cost); here at most 200 were in flight.
      expect(-balance).toBeLessThanOrEqual(200n * maxCost);
      expect(balance).toBe(60_000n - charged.reduce((a, b) => a + b, 0n));
      expect(await live(key.userId)).toBe(balance);
      // Spent: the next request is refused.
      expect((await sdkError(ENDPOINTS[0]!.call(key.client))).code).toBe('insufficient_quota');
    } finally {
      gw.mock.setBehaviour({ latencyMs: 0 });
    }
  }, 30_000);

  it('200 requests in 8 lanes: refusals start once spent, overdraw within the leased bound', async () => {
    const key = await keyWithBalance(300_000n);
    let inFlight = 0;
    let maxInFlight = 0;
    let refused = 0;
    const lane = async (count: number): Promise<void> => {
      for (let i = 0; i < count; i++) {
        inFlight++;
        maxInFlight = Math.max(maxInFlight, inFlight);
        try {
          await ENDPOINTS[0]!.call(key.client);
        } catch (err) {
          if (!(err instanceof APIError) || err.code !== 'insufficient_quota') throw err;
          refused++;
        } finally {
          inFlight--;
        }
      }
    };
    await Promise.all(Array.from({ length: 8 }, () => lane(25)));
    expect(maxInFlight).toBe(8);
    expect(refused).toBeGreaterThan(0);
    await settled(key.userId, 200 - refused);
    const charged = await costs(key.userId);
    const maxCost = charged.reduce((a, b) => (b > a ? b : a), 0n);
    const balance = await durable(key.userId);
    expect(balance).toBeLessThanOrEqual(0n);
    // The bound with leased admission (docs/quota.md): (F + N + E) x C <= (2N + E) x C, with N the
    // requests in flight at once and E = 1 edge; a grant cannot see the requests in flight.
    expect(-balance).toBeLessThan(BigInt(2 * maxInFlight + 1) * maxCost);
  }, 30_000);
});

describe('reconciliation: Postgres is the truth', () => {
  /** Removes every quota key of the gateway's prefix from Redis, as a flushed Redis would (the queue stays). */
  async function flushQuotaState(): Promise<void> {
    for await (const keys of scanKeys(redis, `${gw.env.redisPrefix}:quota:*`)) await deleteKeys(redis, keys);
  }

  async function enqueueLog(log: RequestLogJob): Promise<void> {
    const connection = duplicateRedis(redis, 'e2e-quota-queue');
    const queue = new Queue(REQUEST_LOG_QUEUE, { connection, prefix: deps.keys.bullPrefix });
    try {
      await queue.add(
        REQUEST_LOG_BATCH_JOB,
        { v: 1, logs: [log] },
        { ...REQUEST_LOG_JOB_OPTIONS, jobId: `e2e_${log.requestId}` },
      );
    } finally {
      await queue.close();
      connection.disconnect();
    }
  }

  it('rebuilds a flushed Redis balance exactly, a charge in flight during the flush included', async () => {
    const key = await keyWithBalance(1_000_000_000n);
    for (let i = 0; i < 3; i++) await ENDPOINTS[0]!.call(key.client);
    await settled(key.userId, 3);
    const before = await durable(key.userId);
    expect(await live(key.userId)).toBe(before);

    // An edge debited a request whose log is still on its way when Redis loses its data.
    const inflight = requestLogJob({
      requestId: `req_inflight_${key.userId.slice(0, 8)}`,
      userId: key.userId,
      keyId: key.keyId,
      costNanos: 7_000_000,
    });
    await redis.decrby(deps.keys.quotaBalance(key.userId), inflight.costNanos);
    await flushQuotaState();
    expect(await durable(key.userId)).toBe(before); // no money lost with Redis

    // The next request seeds Redis from Postgres, which does not hold the in-flight charge yet.
    await ENDPOINTS[0]!.call(key.client);
    await settled(key.userId, 4);
    // Its log lands; the seeded copy does not know about it until reconciliation.
    await enqueueLog(inflight);
    await settled(key.userId, 5);
    const truth = await durable(key.userId);
    expect(truth).toBe(await ledgerBalance(gw.db.db, key.userId));

    const res = await fetch(`${gw.workerUrl}/quota/reconcile`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ userIds: [key.userId] }),
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ balances: { [key.userId]: truth.toString() } });
    expect(await live(key.userId)).toBe(truth);
  }, 30_000);

  it('the periodic sweep repairs a Redis copy that drifted from Postgres', async () => {
    const key = await keyWithBalance(5_000_000n);
    await ENDPOINTS[0]!.call(key.client);
    await settled(key.userId, 1);
    const truth = await durable(key.userId);
    await redis.set(deps.keys.quotaBalance(key.userId), '999999999999');
    await eventually(async () => ((await live(key.userId)) === truth ? true : undefined), 5_000, 'the sweep');
  });

  it('refuses a malformed on-demand request with 400', async () => {
    const res = await fetch(`${gw.workerUrl}/quota/reconcile`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ userIds: ['not-a-uuid'] }),
    });
    expect(res.status).toBe(400);
  });
});
