import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { generateApiKey, hashApiKey, type KeyRecord } from '#libs/auth';
import { type GatewayConfig } from '#libs/config';
import { parseConfig } from '#libs/gateway-config';
import { findOrCreateUserByEmail, insertApiKey, insertBudget } from '#libs/db';
import { GatewayError } from '#libs/protocol';
import { budgetOfRow } from '#libs/quota';
import { createRedis, type RedisClient, type RedisKeys, redisKeys } from '#libs/redis';
import { createTestDatabase, seedUserWithKey, type TestDatabase } from '../../../../test/support/db.js';
import { dropRedisPrefix, TEST_REDIS_URL, uniqueRedisPrefix } from '../../../../test/support/redis.js';
import { keyLookupFromDb } from '../auth/key-lookup.js';
import { KeyResolver } from '../auth/key-resolver.service.js';
import { DEFAULT_LEASE_TUNING, type LeaseTuning } from './lease-book.js';
import { QuotaGate } from './quota-gate.service.js';

/**
 * Leased admission (docs/quota.md, "Leases"): several gates stand for several edges, each with its
 * own Redis connection, on one real Redis and Postgres.
 */
const prefix = uniqueRedisPrefix('leases');
const keys: RedisKeys = redisKeys(prefix);
let t: TestDatabase;
let config: GatewayConfig;
const clients: RedisClient[] = [];
const gates: QuotaGate[] = [];

/** One request's cost in these tests (a typical small chat answer). */
const C = 19_000;

beforeAll(async () => {
  t = await createTestDatabase('leases');
  config = parseConfig({
    providers: [{ id: 'p', type: 'openai', base_url: 'http://127.0.0.1:9/v1', models: ['mock-gpt'] }],
    models: [
      { id: 'mock-gpt', owned_by: 'x', created: 0, pricing: { input_per_million: 1, output_per_million: 2 } },
    ],
    groups: { default: ['mock-gpt'] },
  });
});
afterAll(async () => {
  await Promise.all(gates.map((g) => g.onApplicationShutdown()));
  for (const c of clients) c.disconnect();
  await t.drop();
  await dropRedisPrefix(prefix);
});

/** A gate with its own connection: one edge. */
function edge(tuning: Partial<LeaseTuning> = {}, clock: () => number = Date.now): QuotaGate {
  const redis = createRedis(TEST_REDIS_URL, { name: `leases-${clients.length}` });
  clients.push(redis);
  const gate = new QuotaGate(redis, keys, t.db, config, clock, tuning);
  gates.push(gate);
  return gate;
}

async function newKey(grantNanos: bigint, extra: Partial<KeyRecord> = {}): Promise<KeyRecord> {
  const s = await seedUserWithKey(t.db, { grantNanos });
  return { id: s.keyId, userId: s.userId, group: 'default', status: 'active', expiresAt: null, ...extra };
}

/** A new key of the user, by its raw value (for a KeyResolver to read from Postgres). */
async function newRawKey(userId: string): Promise<string> {
  const raw = generateApiKey();
  await insertApiKey(t.db, {
    user_id: userId,
    key_hash: hashApiKey(raw),
    display_prefix: 'sk-x',
    group_name: 'default',
  });
  return raw;
}

let seq = 0;
function settle(gate: QuotaGate, k: KeyRecord, cost = C, startedAt = new Date(gate.now())): void {
  gate.settle({ key: k, model: 'mock-gpt', requestId: `r${++seq}`, usage: null, startedAt }, cost);
}

/** True when admitted, false when refused for quota. */
async function admitted(gate: QuotaGate, k: KeyRecord): Promise<boolean> {
  try {
    await gate.admit(k, 'mock-gpt');
    return true;
  } catch (err) {
    if (err instanceof GatewayError && err.code === 'insufficient_quota') return false;
    throw err;
  }
}

/** The leases Redis holds for an account: lease id -> amount and when Redis stops counting it. */
async function leasesOf(slot: string): Promise<Map<string, { amount: number; countedUntilMs: number }>> {
  const raw = await clients[0]!.hgetall(keys.quotaLeases(slot));
  return new Map(
    Object.entries(raw).map(([id, v]) => {
      const [amount, exp] = v.split(':');
      return [id, { amount: Number(amount), countedUntilMs: Number(exp) }];
    }),
  );
}

const balanceOf = async (slot: string): Promise<number> =>
  Number(await clients[0]!.get(keys.quotaBalance(slot)));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const turn = () => new Promise((r) => setImmediate(r));

describe('leased admission', () => {
  it('admits a warm key with no Redis call before it returns; one grant for a cold one', async () => {
    const gate = edge();
    const k = await newKey(10n ** 12n);
    const redis = clients.at(-1)!;
    const scripts = jest.spyOn(redis, 'evalsha');
    const requests = 1000;
    await gate.admit(k, 'mock-gpt'); // cold: waits for the grant (and the seed)
    expect(gate.counts).toEqual({ leased: 0, granted: 1, scripted: 0 });
    settle(gate, k);
    let written = 0;
    for (let i = 1; i < requests; i++) {
      const before = scripts.mock.calls.length;
      await gate.admit(k, 'mock-gpt');
      written += scripts.mock.calls.length - before; // between the call and its answer
      await turn(); // the upstream call
      settle(gate, k);
    }
    await sleep(30); // the last settles leave
    expect(written).toBe(0);
    expect(gate.counts.granted).toBe(1);
    expect(gate.counts.leased).toBe(requests - 1);
    const perRequest = scripts.mock.calls.length / requests;
    // measured for docs/quota.md: script calls per request (settle batches and renewals)
    process.stdout.write(`leases: ${scripts.mock.calls.length} script calls for ${requests} requests\n`);
    expect(perRequest).toBeLessThan(0.5);
    expect(await balanceOf(k.userId)).toBe(10 ** 12 - requests * C);
    scripts.mockRestore();
  });

  it("grants a cold account's first lease in the load's own Redis call: two script calls in all", async () => {
    const gate = edge();
    const k = await newKey(10n ** 12n);
    const scripts = jest.spyOn(clients.at(-1)!, 'evalsha');
    await gate.admit(k, 'mock-gpt');
    // The lease finding no balance, then REBUILD_THEN_LEASE; no lease call of its own after the load.
    expect(scripts.mock.calls.length).toBe(2);
    expect(gate.counts).toEqual({ leased: 0, granted: 1, scripted: 0 });
    expect(await balanceOf(k.userId)).toBe(10 ** 12);
    expect((await leasesOf(k.userId)).size).toBe(1);
    await gate.admit(k, 'mock-gpt');
    expect(gate.counts.leased).toBe(1);
    scripts.mockRestore();
  });

  it('loads the account of a key just read from Postgres first: one script call in all', async () => {
    const gate = edge();
    const { user } = await findOrCreateUserByEmail(t.db, `fresh-${++seq}@example.com`, 10n ** 12n);
    const raw = await newRawKey(user.id);
    const redis = clients.at(-1)!;
    const k = await new KeyResolver(redis, keys, keyLookupFromDb(t.db), config).authenticate(raw);
    const scripts = jest.spyOn(redis, 'evalsha');
    await gate.admit(k, 'mock-gpt');
    // REBUILD_THEN_LEASE alone: no lease call finding no balance before it.
    expect(scripts.mock.calls.length).toBe(1);
    expect(await balanceOf(k.userId)).toBe(10 ** 12);
    expect((await leasesOf(k.userId)).size).toBe(1);
    scripts.mockRestore();
  });

  it("grants a warm account's new key from a load that finds the balance loaded", async () => {
    const gate = edge();
    const warm = await newKey(10n ** 12n);
    await gate.admit(warm, 'mock-gpt');
    settle(gate, warm);
    await gate.onApplicationShutdown(); // its settle reaches Redis, its lease goes back
    const raw = await newRawKey(warm.userId);
    const fresh = await new KeyResolver(clients.at(-1)!, keys, keyLookupFromDb(t.db), config).authenticate(
      raw,
    );
    const other = edge();
    await other.admit(fresh, 'mock-gpt');
    // The loaded balance is kept (the seed wrote nothing): the first request's cost stays debited.
    expect(await balanceOf(warm.userId)).toBe(10 ** 12 - C);
    expect([...(await leasesOf(warm.userId)).keys()]).toHaveLength(1);
  });

  it('serves a burst of cold accounts at once, each loaded with exactly its own balance and leased from it', async () => {
    const gate = edge();
    const ks = await Promise.all(Array.from({ length: 60 }, (_, i) => newKey(10n ** 9n + BigInt(i))));
    await Promise.all(ks.map((k) => gate.admit(k, 'mock-gpt')));
    expect(gate.counts.granted).toBe(ks.length);
    for (const [i, k] of ks.entries()) {
      expect(await balanceOf(k.userId)).toBe(10 ** 9 + i);
      const leases = [...(await leasesOf(k.userId)).values()];
      expect(leases).toHaveLength(1);
      expect(leases[0]!.amount).toBeGreaterThan(0);
      expect(leases[0]!.amount).toBeLessThanOrEqual(10 ** 9 + i);
    }
  });

  it('keeps spend within the balance plus the in-flight bound: three edges, one user, concurrent load', async () => {
    const balance = 100 * C;
    const k = await newKey(BigInt(balance));
    const edges = [edge(), edge(), edge()];
    const lanesPerEdge = 4;
    let admittedCount = 0;
    let refusedLanes = 0;
    let inFlight = 0;
    let maxInFlight = 0;
    const lane = async (gate: QuotaGate): Promise<void> => {
      for (;;) {
        if (!(await admitted(gate, k))) return void refusedLanes++;
        admittedCount++;
        inFlight++;
        maxInFlight = Math.max(maxInFlight, inFlight);
        await sleep(Math.random() * 3); // the upstream call
        inFlight--;
        settle(gate, k);
      }
    };
    await Promise.all(edges.flatMap((g) => Array.from({ length: lanesPerEdge }, () => lane(g))));
    await Promise.all(edges.map((g) => g.onApplicationShutdown()));
    const lanes = edges.length * lanesPerEdge;
    process.stdout.write(`leases: ${admittedCount} admitted on ${balance / C} requests' balance\n`);
    expect(refusedLanes).toBe(lanes);
    // docs/quota.md's bound: over the balance by less than (F + N + E) requests, F in flight at
    // the last grant, N at the end (each at most the most in flight at once), E edges
    expect(maxInFlight).toBeLessThanOrEqual(lanes);
    expect(admittedCount * C).toBeLessThan(balance + (2 * maxInFlight + edges.length) * C);
    expect(admittedCount * C).toBeGreaterThanOrEqual(balance); // and nobody starved on leases held
    expect(await balanceOf(k.userId)).toBe(balance - admittedCount * C);
    expect((await leasesOf(k.userId)).size).toBe(0); // all handed back at shutdown
  });

  it('does not starve an edge on a small balance: leases are a share of what is left', async () => {
    const balance = 8 * C;
    const k = await newKey(BigInt(balance));
    const a = edge({ idleMs: 150, sweepMs: 50 });
    const b = edge();
    expect(await admitted(a, k)).toBe(true);
    settle(a, k);
    const [held] = [...(await leasesOf(k.userId)).values()];
    expect(held!.amount).toBeLessThanOrEqual(balance / 4);
    // While a holds its lease, b is admitted until the rest is spent.
    let onB = 0;
    while (await admitted(b, k)) {
      onB++;
      settle(b, k);
    }
    expect(onB).toBeGreaterThanOrEqual(5);
    // a's lease goes back when idle; b may spend it then.
    expect((await leasesOf(k.userId)).size).toBe(1); // a's (b's went with its refusal)
    await sleep(400);
    expect((await leasesOf(k.userId)).size).toBe(0);
    const more = await admitted(b, k);
    const spent = (1 + onB + (more ? 1 : 0)) * C;
    if (more) settle(b, k);
    await sleep(30);
    // sequential clients: over the balance by less than one request per edge
    expect(spent).toBeLessThan(balance + 2 * C);
    expect(await balanceOf(k.userId)).toBe(balance - spent);
  });

  it("never lets a lease cross a budget's window: refused before midnight, admitted after", async () => {
    let nowMs = Date.parse('2026-11-25T23:59:59.000Z');
    const gate = edge({}, () => nowMs);
    const s = await seedUserWithKey(t.db, { grantNanos: 10n ** 12n });
    const row = await insertBudget(t.db, {
      user_id: s.userId,
      key_id: s.keyId,
      period: 'day',
      window_kind: 'calendar_utc',
      limit_nanos: 10 * C,
    });
    const k: KeyRecord = {
      id: s.keyId,
      userId: s.userId,
      group: 'default',
      status: 'active',
      expiresAt: null,
      budgets: [budgetOfRow(row)],
    };
    let before = 0;
    while (await admitted(gate, k)) {
      before++;
      settle(gate, k);
      nowMs += 10;
    }
    expect(before).toBeGreaterThanOrEqual(10);
    expect(before).toBeLessThanOrEqual(11); // admitted while below the limit: one request over at most
    const midnight = Date.parse('2026-11-26T00:00:00Z');
    // the lease ends at midnight; Redis counts it for the grace after (edges' clocks)
    for (const l of (await leasesOf(s.userId)).values())
      expect(l.countedUntilMs).toBeLessThanOrEqual(midnight + DEFAULT_LEASE_TUNING.graceMs);
    nowMs = midnight;
    expect(await admitted(gate, k)).toBe(true);
    settle(gate, k);
    await sleep(30);
    const today = keys.quotaBudgetSpent(s.userId, row.id, midnight);
    expect(await clients[0]!.get(today)).toBe(String(C));
  });

  it('grants a reloaded key record with a lowered spend limit against the new limit at once', async () => {
    const gate = edge();
    const k = await newKey(10n ** 12n);
    await gate.admit(k, 'mock-gpt');
    settle(gate, k);
    // The console lowered the limit below what the key spent; every edge reloads the record.
    const reloaded: KeyRecord = { ...k, spendLimitNanos: String(C) };
    expect(await admitted(gate, reloaded)).toBe(false);
    expect(await admitted(gate, k)).toBe(true); // the old record's lease, until the reload
  });

  it('hands leases back when idle and at shutdown', async () => {
    const k = await newKey(10n ** 12n);
    const idle = edge({ idleMs: 100, sweepMs: 25 });
    await idle.admit(k, 'mock-gpt');
    expect((await leasesOf(k.userId)).size).toBe(1);
    await sleep(300);
    expect((await leasesOf(k.userId)).size).toBe(0);

    const busy = edge();
    await busy.admit(k, 'mock-gpt');
    settle(busy, k);
    expect((await leasesOf(k.userId)).size).toBe(1);
    await busy.onApplicationShutdown();
    expect((await leasesOf(k.userId)).size).toBe(0);
    expect(await balanceOf(k.userId)).toBe(10 ** 12 - C); // its settle left with the return
  });

  it("recovers a crashed edge's lease by its expiry", async () => {
    const balance = 1_000_000;
    const k = await newKey(BigInt(balance));
    // Never sweeps: as if the process died with its lease.
    const crashed = edge({ ttlMs: 300, graceMs: 100, sweepMs: 60_000, idleMs: 60_000 });
    await crashed.admit(k, 'mock-gpt');
    const held = [...(await leasesOf(k.userId)).values()][0]!.amount;
    expect(held).toBe(balance / 4);
    const other = edge();
    await other.admit(k, 'mock-gpt');
    const beside = (await leasesOf(k.userId)).size;
    expect(beside).toBe(2);
    const second = edge();
    await sleep(450); // past the lease's end and its grace
    await second.admit(k, 'mock-gpt');
    const left = await leasesOf(k.userId);
    expect(left.size).toBe(2); // the crashed edge's is gone; other's and second's
    // second's share is of everything but other's lease: the crashed one's came back
    const otherAmount = Math.floor((balance - held) / 4);
    expect([...left.values()].map((l) => l.amount).sort((x, y) => x - y)).toEqual(
      [otherAmount, Math.floor((balance - otherAmount) / 4)].sort((x, y) => x - y),
    );
  });
});

describe('leased admission when Redis cannot be reached', () => {
  const dead = createRedis('redis://127.0.0.1:1', { name: 'leases-dead', commandTimeoutMs: 200 });
  dead.on('error', () => undefined);
  afterAll(() => dead.disconnect());

  const gateWith = (when: 'admit' | 'refuse'): QuotaGate => {
    const gate = new QuotaGate(
      dead,
      keys,
      t.db,
      { ...config, quota: { ...config.quota, when_unavailable: when } },
      Date.now,
      { sweepMs: 60_000 },
    );
    return gate;
  };

  it('admits by default (quota.when_unavailable: admit)', async () => {
    const k = await newKey(0n);
    await expect(gateWith('admit').admit(k, 'mock-gpt')).resolves.toBeUndefined();
  });

  it('refuses with 503 quota_unavailable under when_unavailable: refuse', async () => {
    const k = await newKey(10n ** 12n);
    const err = await gateWith('refuse')
      .admit(k, 'mock-gpt')
      .then(
        () => null,
        (e: unknown) => e,
      );
    expect(err).toMatchObject({ code: 'quota_unavailable', status: 503, details: { retryAfterSeconds: 1 } });
  });
});
