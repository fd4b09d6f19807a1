import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { type Redis } from 'ioredis';
import { type KeyRecord } from '#libs/auth';
import { type GatewayConfig } from '#libs/config';
import { parseConfig } from '#libs/gateway-config';
import { insertCharges } from '#libs/db';
import { GatewayError } from '#libs/protocol';
import {
  admitRequest,
  type AdmissionSubject,
  minuteOf,
  NO_LIMITS,
  rebuildQuotas,
  settleRequest,
  WINDOW_MS,
} from '#libs/quota';
import { createRedis, type RedisKeys, redisKeys } from '#libs/redis';
import { createTestDatabase, seedUserWithKey, type TestDatabase } from '../../../../test/support/db.js';
import { dropRedisPrefix, TEST_REDIS_URL, uniqueRedisPrefix } from '../../../../test/support/redis.js';
import { QuotaGate } from './quota-gate.service.js';

const prefix = uniqueRedisPrefix('quota-gate');
const keys: RedisKeys = redisKeys(prefix);
let t: TestDatabase;
let redis: Redis;
let other: Redis;
let config: GatewayConfig;
let gate: QuotaGate;

beforeAll(async () => {
  t = await createTestDatabase('quota_gate');
  redis = createRedis(TEST_REDIS_URL, { name: 'quota-gate-a' });
  other = createRedis(TEST_REDIS_URL, { name: 'quota-gate-b' });
  config = parseConfig({
    providers: [{ id: 'p', type: 'openai', base_url: 'http://127.0.0.1:9/v1', models: ['mock-gpt'] }],
    models: [
      { id: 'mock-gpt', owned_by: 'x', created: 0, pricing: { input_per_million: 1, output_per_million: 2 } },
    ],
    groups: { default: ['mock-gpt'], limited: { models: ['mock-gpt'], limits: { rpm: 4, tpm: 100 } } },
  });
  // Read at each call, not captured: \`Date.now\` taken here is the real one, installed before the
  // fake clock below, and the gate then counted in the real minute while the test counted in the
  // frozen one (it failed when the real minute turned between the gate's admissions).
  // Leases off: these tests spend through Redis beside the gate and expect its next admission to
  // see it at once, which is the per-request script's behaviour (kept for rate-limited keys and
  // leases off). Leased admission has its own spec, leases.int-spec.ts.
  gate = new QuotaGate(redis, keys, t.db, config, () => Date.now(), { enabled: false });
});
afterAll(async () => {
  redis.disconnect();
  other.disconnect();
  await t.drop();
  await dropRedisPrefix(prefix);
});

async function newKey(
  grantNanos: bigint,
  extra: Partial<KeyRecord> = {},
  group = 'default',
): Promise<KeyRecord> {
  const s = await seedUserWithKey(t.db, { grantNanos, group });
  return { id: s.keyId, userId: s.userId, group, status: 'active', expiresAt: null, ...extra };
}

const subjectOf = (k: KeyRecord, groupLimits = NO_LIMITS): AdmissionSubject => ({
  userId: k.userId,
  keyId: k.id,
  group: k.group,
  keySpendLimitNanos: k.spendLimitNanos ?? null,
  keyLimits: { rpm: k.rpmLimit ?? null, tpm: k.tpmLimit ?? null },
  groupLimits,
});

/** The error `admit` threw, or null when it admitted. */
async function admitted(k: KeyRecord): Promise<GatewayError | null> {
  try {
    await gate.admit(k, 'mock-gpt');
    return null;
  } catch (err) {
    if (err instanceof GatewayError) return err;
    throw err;
  }
}

const live = async (userId: string): Promise<string | null> => redis.get(keys.quotaBalance(userId));
const tagOf = (key: string): string | undefined => /\{([^}]+)\}/.exec(key)?.[1];

describe('quota gate (real Redis and Postgres)', () => {
  // Rate limits count in fixed one-minute windows of Date.now(), and the gate reads the clock itself:
  // a test counting admissions through it failed whenever the minute turned between its calls (the
  // counters start again at 0). The clock stands still mid-minute here; only Date is faked, the
  // clients' timers stay real.
  beforeAll(() => {
    jest.useFakeTimers({
      now: minuteOf(Date.now()) * WINDOW_MS + WINDOW_MS / 2,
      doNotFake: [
        'hrtime',
        'nextTick',
        'performance',
        'queueMicrotask',
        'setImmediate',
        'clearImmediate',
        'setInterval',
        'clearInterval',
        'setTimeout',
        'clearTimeout',
        'Temporal',
      ],
    });
  });
  afterAll(() => {
    jest.useRealTimers();
  });

  it('seeds a cold user from Postgres, admits while positive, refuses once spent', async () => {
    const k = await newKey(1_000n);
    expect(await live(k.userId)).toBeNull();
    expect(await Promise.all(Array.from({ length: 20 }, () => admitted(k)))).toEqual(Array(20).fill(null));
    expect(await live(k.userId)).toBe('1000');
    await settleRequest(redis, keys, subjectOf(k), { requestId: 'a1', costNanos: 600, tokens: 10 });
    expect(await admitted(k)).toBeNull();
    await settleRequest(other, keys, subjectOf(k), { requestId: 'a2', costNanos: 600, tokens: 10 });
    expect(await live(k.userId)).toBe('-200');
    const err = await admitted(k);
    expect(err).toMatchObject({ code: 'insufficient_quota', status: 429 });
    expect(err?.details.retryAfterSeconds).toBeUndefined();
  });

  it('settles a request id once, however often it is retried', async () => {
    const k = await newKey(1_000n);
    await gate.admit(k, 'mock-gpt');
    const charge = { requestId: 'twice', costNanos: 300, tokens: 0 };
    await Promise.all([
      settleRequest(redis, keys, subjectOf(k), charge),
      settleRequest(other, keys, subjectOf(k), charge),
    ]);
    expect(await live(k.userId)).toBe('700');
    expect(await redis.hget(keys.quotaPending(k.userId), 'twice')).toMatch(new RegExp(`^300:\\d+:${k.id}$`));
  });

  it('refuses a key at its spend limit while its owner still has credits', async () => {
    const k = await newKey(10_000n, { spendLimitNanos: '500' });
    await gate.admit(k, 'mock-gpt');
    await settleRequest(redis, keys, subjectOf(k), { requestId: 'k1', costNanos: 500, tokens: 0 });
    expect(await admitted(k)).toMatchObject({
      code: 'insufficient_quota',
      message: expect.stringMatching(/spending limit/),
    });
    const sibling: KeyRecord = { ...k, id: '00000000-0000-4000-8000-0000000000c1', spendLimitNanos: null };
    expect(await admitted(sibling)).toBeNull();
  });

  it('holds a key rpm limit across connections exactly, with retry-after to the next minute', async () => {
    const k = await newKey(10n ** 12n, { rpmLimit: 5 });
    await rebuildQuotas({ db: t.db, redis, keys }, [k.userId], { mode: 'seed' });
    const now = Date.now();
    const verdicts = await Promise.all(
      Array.from({ length: 40 }, (_, i) => admitRequest(i % 2 ? redis : other, keys, subjectOf(k), now)),
    );
    expect(verdicts.filter((v) => v.ok)).toHaveLength(5);
    const refused = verdicts.find((v) => !v.ok);
    const expected = Math.max(1, Math.ceil((Math.floor(now / 60_000) * 60_000 + 60_000 - now) / 1000));
    expect(refused).toEqual({ ok: false, reason: 'key_rpm', retryAfterSeconds: expected });
    // The next window admits again.
    expect(await admitRequest(redis, keys, subjectOf(k), now + 60_000)).toEqual({ ok: true });
  });

  it('refuses by tpm once settled tokens reach the limit, and says so as rate_limit_exceeded', async () => {
    const k = await newKey(10n ** 12n, { tpmLimit: 50 });
    await rebuildQuotas({ db: t.db, redis, keys }, [k.userId], { mode: 'seed' });
    const now = Date.now();
    const s = subjectOf(k);
    expect(await admitRequest(redis, keys, s, now)).toEqual({ ok: true });
    await settleRequest(redis, keys, s, { requestId: 't1', costNanos: 1, tokens: 49 }, now);
    expect(await admitRequest(redis, keys, s, now)).toEqual({ ok: true });
    await settleRequest(redis, keys, s, { requestId: 't2', costNanos: 1, tokens: 1 }, now);
    expect(await admitRequest(redis, keys, s, now)).toMatchObject({ ok: false, reason: 'key_tpm' });
    // Through the gate (in the current window): the client's error.
    await settleRequest(redis, keys, s, { requestId: 't3', costNanos: 1, tokens: 50 });
    const err = await admitted(k);
    expect(err).toMatchObject({ code: 'rate_limit_exceeded', status: 429 });
    expect(err?.message).toMatch(/this API key: 50 tokens per minute/);
    expect(err?.details.retryAfterSeconds).toBeGreaterThanOrEqual(1);
  });

  it('applies group limits to each user of the group on its own', async () => {
    const a = await newKey(10n ** 12n, {}, 'limited');
    const b = await newKey(10n ** 12n, {}, 'limited');
    await rebuildQuotas({ db: t.db, redis, keys }, [a.userId, b.userId], { mode: 'seed' });
    const limits = { rpm: 4, tpm: 100 };
    const now = Date.now();
    const aResults = await Promise.all(
      Array.from({ length: 6 }, () => admitRequest(redis, keys, subjectOf(a, limits), now)),
    );
    expect(aResults.filter((v) => v.ok)).toHaveLength(4);
    expect(aResults.find((v) => !v.ok)).toMatchObject({ reason: 'group_rpm' });
    expect(await admitRequest(redis, keys, subjectOf(b, limits), now)).toEqual({ ok: true });
    // The gate reads the group's limits from the config and names them.
    for (let i = 0; i < 4; i++) await admitted(b);
    expect(await admitted(b)).toMatchObject({
      code: 'rate_limit_exceeded',
      message: expect.stringMatching(/group limited: 4 requests per minute/),
    });
  });

  it('keeps every key of a user in one hash slot (Redis Cluster)', async () => {
    const daily = {
      keyId: null,
      period: 'day',
      window: 'calendar_utc',
      modelGroup: null,
      models: null,
    } as const;
    const k = await newKey(
      10n ** 12n,
      {
        rpmLimit: 100,
        tpmLimit: 100_000,
        spendLimitNanos: '1000000',
        budgets: [{ ...daily, id: '00000000-0000-4000-8000-0000000000b1', limitNanos: '1000000' }],
      },
      'limited',
    );
    await gate.admit(k, 'mock-gpt');
    const usage = { inputTokens: 3, outputTokens: 4 };
    gate.settle({ key: k, model: 'mock-gpt', requestId: 'slot-1', usage, startedAt: new Date() }, 9);
    await new Promise((r) => setTimeout(r, 50));
    const found: string[] = [];
    let cursor = '0';
    do {
      const [next, batch] = await redis.scan(cursor, 'MATCH', `${prefix}:*${k.userId}*`, 'COUNT', 1000);
      cursor = next;
      found.push(...batch);
    } while (cursor !== '0');
    // balance, key spend, pending, key rpm and tpm, group rpm and tpm, the budget's day counter
    expect(found.length).toBe(8);
    expect(new Set(found.map(tagOf))).toEqual(new Set([k.userId]));
  });

  it('a seed subtracts charges debited while the user was not loaded, and not those Postgres holds', async () => {
    const k = await newKey(1_000n);
    // Two requests finish while Redis has no balance (say, right after a flush): only pending is written.
    await settleRequest(redis, keys, subjectOf(k), { requestId: 'p1', costNanos: 100, tokens: 0 });
    await settleRequest(redis, keys, subjectOf(k), { requestId: 'p2', costNanos: 200, tokens: 0 });
    expect(await live(k.userId)).toBeNull();
    // The worker settled p1 in Postgres already; p2 is still queued.
    await insertCharges(t.db, [{ requestId: 'p1', userId: k.userId, keyId: k.id, amountNanos: 100 }]);
    expect(await admitted(k)).toBeNull();
    expect(await live(k.userId)).toBe('700'); // 1000 - 100 (settled) - 200 (pending)
    expect(await redis.hkeys(keys.quotaPending(k.userId))).toEqual(['p2']);
    expect(await redis.hget(keys.quotaKeySpent(k.userId), k.id)).toBe('300');
    // A second seed leaves the loaded copy alone (SET NX semantics).
    const again = await rebuildQuotas({ db: t.db, redis, keys }, [k.userId], { mode: 'seed' });
    expect(again.get(k.userId)).toEqual({ written: false, balanceNanos: 700n });
  });
});

describe('quota gate when Redis cannot be reached', () => {
  const dead = createRedis('redis://127.0.0.1:1', { name: 'quota-gate-dead', commandTimeoutMs: 200 });
  dead.on('error', () => undefined);
  afterAll(() => dead.disconnect());

  const gateWith = (when: 'admit' | 'refuse'): QuotaGate =>
    new QuotaGate(
      dead,
      keys,
      t.db,
      { ...config, quota: { ...config.quota, when_unavailable: when } },
      Date.now,
    );

  it('admits by default: the gateway keeps serving and bills afterwards', async () => {
    const k = await newKey(0n); // no balance at all: a reachable Redis would refuse it
    await expect(gateWith('admit').admit(k, 'mock-gpt')).resolves.toBeUndefined();
  });

  it('refuses with 503 quota_unavailable and retry-after under when_unavailable: refuse', async () => {
    const k = await newKey(10n ** 12n);
    const err = await gateWith('refuse')
      .admit(k, 'mock-gpt')
      .then(
        () => null,
        (e: unknown) => e,
      );
    expect(err).toBeInstanceOf(GatewayError);
    expect(err).toMatchObject({ code: 'quota_unavailable', status: 503, details: { retryAfterSeconds: 1 } });
  });
});
