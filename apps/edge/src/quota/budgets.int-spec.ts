import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { type Redis } from 'ioredis';
import { type KeyRecord } from '#libs/auth';
import { type GatewayConfig } from '#libs/config';
import { parseConfig } from '#libs/gateway-config';
import { insertApiKey, insertBudget, insertCharges, type NewBudget } from '#libs/db';
import { GatewayError } from '#libs/protocol';
import { type Budget, budgetOfRow, rebuildQuotas, modelGroupsOf } from '#libs/quota';
import { createRedis, type RedisKeys, redisKeys } from '#libs/redis';
import { createTestDatabase, seedUserWithKey, type TestDatabase } from '../../../../test/support/db.js';
import { dropRedisPrefix, TEST_REDIS_URL, uniqueRedisPrefix } from '../../../../test/support/redis.js';
import { QuotaGate } from './quota-gate.service.js';

/** Budgets through the real admission and settle scripts, with a clock the test moves. */
const prefix = uniqueRedisPrefix('budgets');
const keys: RedisKeys = redisKeys(prefix);
let t: TestDatabase;
let redis: Redis;
let config: GatewayConfig;
let gate: QuotaGate;
let nowMs = 0;
const setClock = (iso: string): void => void (nowMs = Date.parse(iso));

beforeAll(async () => {
  t = await createTestDatabase('budgets');
  redis = createRedis(TEST_REDIS_URL, { name: 'budgets' });
  const model = (id: string) => ({
    id,
    owned_by: 'x',
    created: 0,
    pricing: { input_per_million: 1, output_per_million: 1 },
  });
  config = parseConfig({
    providers: [{ id: 'p', type: 'openai', base_url: 'http://127.0.0.1:9/v1', models: ['mini', 'pro'] }],
    models: [model('mini'), model('pro')],
    groups: { default: ['mini', 'pro'], premium: ['pro'] },
  });
  gate = new QuotaGate(redis, keys, t.db, config, () => nowMs);
});
afterAll(async () => {
  redis.disconnect();
  await t.drop();
  await dropRedisPrefix(prefix);
});

/** A user with credits to spare and one key, whose budgets are stored and carried in its record. */
async function keyWith(
  budgets: Array<Omit<NewBudget, 'user_id'> & { keyScoped?: boolean }>,
): Promise<KeyRecord> {
  const s = await seedUserWithKey(t.db, { grantNanos: 10n ** 12n });
  const rows = [];
  for (const { keyScoped, ...b } of budgets)
    rows.push(await insertBudget(t.db, { ...b, user_id: s.userId, key_id: keyScoped ? s.keyId : null }));
  return {
    id: s.keyId,
    userId: s.userId,
    group: 'default',
    status: 'active',
    expiresAt: null,
    budgets: rows.map(budgetOfRow),
  };
}

/** Admits at the current clock: null, or the refusal's message. */
async function admit(k: KeyRecord, model = 'mini'): Promise<string | null> {
  try {
    await gate.admit(k, model);
    return null;
  } catch (err) {
    if (!(err instanceof GatewayError)) throw err;
    expect(err).toMatchObject({ code: 'insufficient_quota', status: 429 });
    return err.message;
  }
}

/** The retry-after (seconds) of the refusal at the current clock; undefined if none or admitted. */
async function retryAfter(k: KeyRecord, model = 'mini'): Promise<number | undefined> {
  const err = await gate.admit(k, model).catch((e: unknown) => e);
  return err instanceof GatewayError ? err.details.retryAfterSeconds : undefined;
}

let seq = 0;
/** A request started now costing `nanos`, settled through the gate; resolves once Redis ran it. */
async function spend(
  k: KeyRecord,
  nanos: number,
  model = 'mini',
  startedAt = new Date(nowMs),
): Promise<void> {
  gate.settle({ key: k, model, requestId: `r${++seq}`, usage: null, startedAt }, nanos);
  await new Promise((r) => setImmediate(r)); // the gate sends its settles at the end of the turn
  await redis.ping(); // same connection: answered after the settle ran
}

const daily = { period: 'day', window_kind: 'calendar_utc', limit_nanos: 1000, keyScoped: true } as const;

describe('calendar budgets across their boundary (fixed clock)', () => {
  it('refuses a key whose daily budget is spent, naming it, and admits it again at midnight UTC', async () => {
    setClock('2026-11-25T23:59:00Z');
    const k = await keyWith([daily]);
    expect(await admit(k)).toBeNull();
    await spend(k, 600);
    expect(await admit(k)).toBeNull(); // 600 < 1000: admitted, the next debit overshoots
    await spend(k, 600);
    const refusal =
      "Quota exceeded: this key's daily budget of 0.000001 credits is spent; it resets at 2026-11-26T00:00:00Z.";
    expect(await admit(k)).toBe(refusal);
    expect(await retryAfter(k)).toBe(60); // the seconds to the reset the message names
    setClock('2026-11-25T23:59:59.999Z');
    expect(await admit(k)).toBe(refusal);
    expect(await retryAfter(k)).toBe(1);
    setClock('2026-11-26T00:00:00Z');
    expect(await admit(k)).toBeNull();
  });

  it('charges a request to the day it started in, even when it settles after midnight', async () => {
    setClock('2026-11-25T23:59:59Z');
    const k = await keyWith([daily]);
    expect(await admit(k)).toBeNull();
    const started = new Date(nowMs);
    setClock('2026-11-26T00:00:01Z');
    await spend(k, 5000, 'mini', started);
    expect(await admit(k)).toBeNull(); // today's window is untouched
    const yesterday = keys.quotaBudgetSpent(k.userId, k.budgets![0]!.id, Date.parse('2026-11-25T00:00:00Z'));
    expect(await redis.get(yesterday)).toBe('5000');
    expect(await redis.ttl(yesterday)).toBeGreaterThan(86_000); // kept a day past its end, for slow clocks
  });

  it("holds a user's weekly budget over all its keys, until Monday 00:00 UTC", async () => {
    setClock('2026-11-29T23:00:00Z'); // a Sunday
    const k = await keyWith([{ period: 'week', window_kind: 'calendar_utc', limit_nanos: 1000 }]);
    const second = await insertApiKey(t.db, {
      user_id: k.userId,
      name: 'second',
      key_hash: randomBytes(32).toString('hex'),
      display_prefix: 'sk-x',
      group_name: 'default',
    });
    const k2: KeyRecord = { ...k, id: second.id };
    expect(await admit(k)).toBeNull();
    await spend(k, 1000);
    expect(await admit(k2)).toBe(
      "Quota exceeded: your account's weekly budget of 0.000001 credits is spent; it resets at 2026-11-30T00:00:00Z.",
    );
    setClock('2026-11-30T00:00:00Z');
    expect(await admit(k2)).toBeNull();
  });

  it("counts only a model group's models in its budget", async () => {
    setClock('2026-11-25T12:00:00Z');
    const k = await keyWith([{ ...daily, model_group: 'premium' }]);
    await spend(k, 50_000, 'mini'); // not a premium model: not counted
    expect(await admit(k, 'pro')).toBeNull();
    await spend(k, 1000, 'pro');
    expect(await admit(k, 'pro')).toMatch(
      /daily budget of 0\.000001 credits for the models of group premium is spent/,
    );
    expect(await admit(k, 'mini')).toBeNull();
  });

  it('never resets a lifetime budget', async () => {
    setClock('2026-11-25T12:00:00Z');
    const k = await keyWith([{ period: 'lifetime', window_kind: 'calendar_utc', limit_nanos: 1000 }]);
    expect(await admit(k)).toBeNull();
    await spend(k, 1000);
    setClock('2030-01-01T00:00:00Z');
    expect(await admit(k)).toMatch(/your account's lifetime budget .* is spent; it does not reset\.$/);
    expect(await retryAfter(k)).toBeUndefined(); // no reset to wait for
    expect(await redis.ttl(keys.quotaBudgetSpent(k.userId, k.budgets![0]!.id, 0))).toBe(-1);
  });
});

describe('rolling budgets', () => {
  it('frees spend when its hour is 24 hours old', async () => {
    setClock('2026-11-25T10:30:00Z');
    const k = await keyWith([{ ...daily, window_kind: 'rolling' }]);
    await spend(k, 400);
    setClock('2026-11-25T18:10:00Z');
    await spend(k, 600);
    setClock('2026-11-26T09:59:59Z');
    expect(await admit(k)).toBe(
      "Quota exceeded: this key's rolling 24-hour budget of 0.000001 credits is spent; its oldest spend leaves the window at 2026-11-26T10:00:00Z.",
    );
    setClock('2026-11-26T09:58:30Z');
    expect(await retryAfter(k)).toBe(90);
    setClock('2026-11-26T10:00:00Z'); // the 400 of 10:30 yesterday left; 600 remain
    expect(await admit(k)).toBeNull();
  });
});

describe('budget counters rebuilt from Postgres', () => {
  it('seeds the window from charges by start time and model, plus pending charges Postgres lacks', async () => {
    setClock('2026-11-25T12:00:00Z');
    const k = await keyWith([{ ...daily, limit_nanos: 1000, models: ['mini'] }]);
    const charge = (requestId: string, amount: number, startedAt: string, model: string) =>
      insertCharges(t.db, [
        { requestId, userId: k.userId, keyId: k.id, amountNanos: amount, startedAt, model },
      ]);
    await charge(`${k.id}-a`, 300, '2026-11-25T01:00:00Z', 'mini'); // counts
    await charge(`${k.id}-b`, 5000, '2026-11-24T23:59:59Z', 'mini'); // yesterday
    await charge(`${k.id}-c`, 5000, '2026-11-25T02:00:00Z', 'pro'); // another model
    await spend(k, 200); // debited while loaded, its log still on the way
    // Redis loses the user's copy: the next admission seeds it, counters included.
    const day = keys.quotaBudgetSpent(k.userId, k.budgets![0]!.id, Date.parse('2026-11-25T00:00:00Z'));
    await redis.del(keys.quotaBalance(k.userId), day);
    expect(await admit(k)).toBeNull();
    expect(await redis.get(day)).toBe('500'); // 300 in Postgres + 200 pending
    await spend(k, 500);
    expect(await admit(k)).toMatch(/daily budget of 0\.000001 credits for mini is spent/);
    // A refresh (the worker's sweep) recomputes the same value: exact, not added twice.
    await rebuildQuotas({ db: t.db, redis, keys }, [k.userId], {
      mode: 'refresh',
      now: () => nowMs,
      modelGroups: modelGroupsOf(config),
    });
    expect(await redis.get(day)).toBe('1000');
  });

  it('gives a budget created mid-window the spend already made in it', async () => {
    setClock('2026-11-25T12:00:00Z');
    const k = await keyWith([]);
    expect(await admit(k)).toBeNull(); // loads the user
    const startedAt = new Date(nowMs).toISOString();
    await insertCharges(t.db, [
      { requestId: `${k.id}-x`, userId: k.userId, keyId: k.id, amountNanos: 700, startedAt },
    ]);
    const row = await insertBudget(t.db, {
      ...daily,
      key_id: k.id,
      user_id: k.userId,
      keyScoped: undefined,
    } as NewBudget);
    await rebuildQuotas({ db: t.db, redis, keys }, [k.userId], { mode: 'refresh', now: () => nowMs });
    const withBudget: KeyRecord = { ...k, budgets: [budgetOfRow(row) satisfies Budget] };
    expect(await redis.get(keys.quotaBudgetSpent(k.userId, row.id, Date.parse('2026-11-25T00:00:00Z')))).toBe(
      '700',
    );
    await spend(withBudget, 300);
    expect(await admit(withBudget)).toMatch(/daily budget/);
  });
});
