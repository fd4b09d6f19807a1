import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { type KeyRecord } from '#libs/auth';
import { type GatewayConfig } from '#libs/config';
import { parseConfig } from '#libs/gateway-config';
import {
  admitRequest,
  type AdmissionSubject,
  groupRateLimits,
  keyRateLimits,
  settleRequest,
  settleThenAdmit,
} from '#libs/quota';
import { createRedis, type RedisClient, redisKeys, scanKeys } from '#libs/redis';
import { createTestDatabase, seedUserWithKey, type TestDatabase } from '../../../../test/support/db.js';
import {
  type PrivateRedis,
  type PrivateRedisCluster,
  startPrivateRedis,
  startPrivateRedisCluster,
} from '../../../../test/support/private-servers.js';
import { QuotaGate, SETTLE_LINGER_MS } from './quota-gate.service.js';

/**
 * A settle rides in its owner's next admission: one script call per request instead of two, with
 * the same Redis state as settling and admitting one by one. Private servers, so the number of
 * script calls can be read from Redis's own command statistics.
 */
let t: TestDatabase;
let server: PrivateRedis;
let cluster: PrivateRedisCluster;
const clients: RedisClient[] = [];
let config: GatewayConfig;

beforeAll(async () => {
  t = await createTestDatabase('settle_rides');
  [server, cluster] = await Promise.all([startPrivateRedis(), startPrivateRedisCluster()]);
  config = parseConfig({
    providers: [{ id: 'p', type: 'openai', base_url: 'http://127.0.0.1:9/v1', models: ['mock-gpt'] }],
    models: [
      { id: 'mock-gpt', owned_by: 'x', created: 0, pricing: { input_per_million: 1, output_per_million: 2 } },
    ],
    groups: { limited: { models: ['mock-gpt'], limits: { rpm: 1000, tpm: 100_000 } } },
  });
}, 60_000);

afterAll(async () => {
  for (const c of clients) c.disconnect();
  await Promise.all([server?.destroy(), cluster?.destroy()]);
  await t?.drop();
});

function client(url: string, isCluster = false): RedisClient {
  const c = createRedis({ url, cluster: isCluster }, { name: 'settle-rides' });
  clients.push(c);
  return c;
}

async function newKey(grantNanos: bigint): Promise<KeyRecord> {
  const s = await seedUserWithKey(t.db, { grantNanos, group: 'limited' });
  return {
    id: s.keyId,
    userId: s.userId,
    group: 'limited',
    status: 'active',
    expiresAt: null,
    tpmLimit: 50_000,
  };
}

const subjectOf = (k: KeyRecord): AdmissionSubject => ({
  userId: k.userId,
  keyId: k.id,
  group: k.group,
  keySpendLimitNanos: null,
  keyLimits: keyRateLimits(k),
  groupLimits: groupRateLimits(config).get(k.group)!,
});

/** Script calls Redis has run so far (EVALSHA and EVAL). */
async function scriptCalls(redis: RedisClient): Promise<number> {
  const stats = await (redis as ReturnType<typeof createRedis>).info('commandstats');
  return [...stats.matchAll(/cmdstat_(?:evalsha|eval):calls=(\d+)/g)].reduce((n, m) => n + Number(m[1]), 0);
}

/** Every quota key of a user (its slot), with values, the key-independent parts of names kept. */
async function stateOf(redis: RedisClient, prefix: string, userId: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  const names: string[] = [];
  // On a Cluster KEYS asks one node: SCAN every primary.
  for await (const page of scanKeys(redis, `${prefix}:*{${userId}}*`)) names.push(...page);
  for (const name of names.sort()) {
    const type = await redis.type(name);
    const value =
      type === 'hash'
        ? JSON.stringify(
            Object.entries(await redis.hgetall(name))
              // A pending entry holds the time it was written: compare the cost and key only.
              .map(([f, v]) => [f, v.replace(/:\d+:/, ':<ms>:')])
              .sort(),
          )
        : String(await redis.get(name));
    out[name.slice(prefix.length)] = value;
  }
  return out;
}

describe('settles riding in the next admission', () => {
  it('leave the same Redis state as settling and admitting one by one, on a server and on a Cluster', async () => {
    const now = Date.now();
    const charges = [
      { requestId: 'r1', costNanos: 300, tokens: 40, startedAtMs: now - 2 },
      { requestId: 'r2', costNanos: 500, tokens: 70, startedAtMs: now - 1 },
      { requestId: 'r1', costNanos: 300, tokens: 40, startedAtMs: now - 2 }, // a retried settle
    ];
    for (const [redis, label] of [
      [client(server.url), 'server'],
      [client(cluster.url, true), 'cluster'],
    ] as const) {
      const k = await newKey(10_000n);
      const subject = subjectOf(k);
      const [apart, together] = [redisKeys(`apart-${label}`), redisKeys(`together-${label}`)];
      for (const keys of [apart, together]) await redis.set(keys.quotaBalance(k.userId), '1000');

      for (const charge of charges) await settleRequest(redis, apart, subject, charge, now);
      const alone = await admitRequest(redis, apart, subject, now);
      const carried = await settleThenAdmit(
        redis,
        together,
        charges.map((charge) => ({ subject, charge })),
        subject,
        now,
      );

      expect({ label, verdict: carried }).toEqual({ label, verdict: alone });
      const state = await stateOf(redis, `together-${label}`, k.userId);
      expect(state).toEqual(await stateOf(redis, `apart-${label}`, k.userId));
      expect(state[together.quotaBalance(k.userId).slice(`together-${label}`.length)]).toBe('200');
      // The admission and each settle left their mark: balance, pending, key spend, rpm and tpm.
      expect(Object.keys(state).length).toBeGreaterThanOrEqual(5);
    }
  });

  it('are applied before the admission is checked: charges that spend the balance refuse it', async () => {
    const redis = client(server.url);
    const keys = redisKeys('refuse');
    const k = await newKey(10_000n);
    const subject = subjectOf(k);
    await redis.set(keys.quotaBalance(k.userId), '1000');
    const settles = ['a', 'b'].map((id) => ({
      subject,
      charge: { requestId: id, costNanos: 600, tokens: 1 },
    }));
    expect(await settleThenAdmit(redis, keys, settles, subject)).toMatchObject({
      ok: false,
      reason: 'balance',
    });
    expect(await redis.get(keys.quotaBalance(k.userId))).toBe('-200');
  });

  it('cost one script call per request through the gate, and leave alone within the linger time', async () => {
    const redis = client(server.url);
    const keys = redisKeys('gate');
    const gate = new QuotaGate(redis, keys, t.db, config, Date.now);
    const k = await newKey(1_000_000n);
    await gate.admit(k, 'mock-gpt'); // seeds the balance from Postgres
    const before = await scriptCalls(redis);
    const requests = 10;
    for (let i = 0; i < requests; i++) {
      await gate.admit(k, 'mock-gpt');
      gate.settle(
        {
          key: k,
          model: 'mock-gpt',
          requestId: `g${i}`,
          usage: { inputTokens: 5, outputTokens: 5 },
          startedAt: new Date(),
        },
        1_000,
      );
    }
    // Nine settles rode in the next admission; the last leaves on its own after the linger time.
    expect(await scriptCalls(redis)).toBe(before + requests);
    await new Promise((resolve) => setTimeout(resolve, SETTLE_LINGER_MS * 5));
    expect(await scriptCalls(redis)).toBe(before + requests + 1);
    expect(await redis.get(keys.quotaBalance(k.userId))).toBe(String(1_000_000 - requests * 1_000));
    expect(await redis.hlen(keys.quotaPending(k.userId))).toBe(requests);
  });

  it('leave at shutdown without waiting for the linger time', async () => {
    const redis = client(server.url);
    const keys = redisKeys('shutdown');
    const gate = new QuotaGate(redis, keys, t.db, config, Date.now);
    const k = await newKey(1_000_000n);
    await gate.admit(k, 'mock-gpt');
    gate.settle(
      {
        key: k,
        model: 'mock-gpt',
        requestId: 's1',
        usage: { inputTokens: 1, outputTokens: 1 },
        startedAt: new Date(),
      },
      2_500,
    );
    gate.onApplicationShutdown();
    // The command is on its way before shutdown returns: the next one on the connection sees it.
    expect(await redis.get(keys.quotaBalance(k.userId))).toBe(String(1_000_000 - 2_500));
  });
});
