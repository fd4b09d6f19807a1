import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { type Redis } from 'ioredis';
import { getQuotaBalance, insertCharges } from '#libs/db';
import { createRedis, redisKeys } from '#libs/redis';
import { createTestDatabase, seedUserWithKey, type TestDatabase } from '../../../test/support/db.js';
import { dropRedisPrefix, TEST_REDIS_URL, uniqueRedisPrefix } from '../../../test/support/redis.js';
import { type AdmissionSubject, NO_LIMITS } from './admission.js';
import { forgetSettled, settleRequest } from './quota.store.js';
import { type QuotaDeps, rebuildQuotas } from './rebuild.js';

const prefix = uniqueRedisPrefix('rebuild');
let t: TestDatabase;
let redis: Redis;
let deps: QuotaDeps;

beforeAll(async () => {
  t = await createTestDatabase('rebuild');
  redis = createRedis(TEST_REDIS_URL, { name: 'rebuild' });
  deps = { db: t.db, redis, keys: redisKeys(prefix) };
});
afterAll(async () => {
  redis.disconnect();
  await t.drop();
  await dropRedisPrefix(prefix);
});

async function user(grantNanos: bigint): Promise<AdmissionSubject> {
  const s = await seedUserWithKey(t.db, { grantNanos });
  return {
    userId: s.userId,
    keyId: s.keyId,
    group: 'default',
    keySpendLimitNanos: null,
    keyLimits: NO_LIMITS,
    groupLimits: NO_LIMITS,
  };
}

const live = async (u: AdmissionSubject): Promise<bigint | null> => {
  const v = await redis.get(deps.keys.quotaBalance(u.userId));
  return v === null ? null : BigInt(v);
};
const durable = async (u: AdmissionSubject): Promise<bigint> =>
  BigInt((await getQuotaBalance(t.db, u.userId))!.balance_nanos);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** What the worker does with one charge: commit it, then drop it from the pending set. */
async function workerSettles(u: AdmissionSubject, requestId: string, cost: number): Promise<void> {
  await insertCharges(t.db, [{ requestId, userId: u.userId, keyId: u.keyId, amountNanos: cost }]);
  await forgetSettled(redis, deps.keys, [{ userId: u.userId, requestId }]);
}

describe('rebuilding Redis balances from Postgres', () => {
  it('neither hands back nor double counts charges the edge debited and the worker has not settled', async () => {
    const u = await user(1_000_000n);
    await rebuildQuotas(deps, [u.userId], { mode: 'seed' });
    // Three requests debited at the edge; the worker settled only the first.
    for (const [id, cost] of [
      ['r1', 100],
      ['r2', 200],
      ['r3', 300],
    ] as const)
      await settleRequest(redis, deps.keys, u, { requestId: id, costNanos: cost, tokens: 0 });
    await workerSettles(u, 'r1', 100);
    expect(await live(u)).toBe(999_400n);
    const [result] = (await rebuildQuotas(deps, [u.userId], { mode: 'force' })).values();
    expect(result).toEqual({ written: true, balanceNanos: 999_400n });
    expect(await durable(u)).toBe(999_900n);
    expect((await redis.hkeys(deps.keys.quotaPending(u.userId))).sort()).toEqual(['r2', 'r3']);
    expect(await redis.hget(deps.keys.quotaKeySpent(u.userId), u.keyId)).toBe('600');
  });

  it('stays exact under 150 charges settling while reconciliations run concurrently', async () => {
    const u = await user(10_000_000n);
    await rebuildQuotas(deps, [u.userId], { mode: 'seed' });
    const costs = Array.from({ length: 150 }, (_, i) => 1_000 + i);
    let stop = false;
    const reconciling = (async () => {
      let runs = 0;
      while (!stop) {
        await rebuildQuotas(deps, [u.userId], { mode: 'refresh' });
        runs++;
      }
      return runs;
    })();
    await Promise.all(
      costs.map(async (cost, i) => {
        await sleep(i % 7);
        await settleRequest(redis, deps.keys, u, { requestId: `c${i}`, costNanos: cost, tokens: 0 });
        await sleep(i % 5);
        await workerSettles(u, `c${i}`, cost);
      }),
    );
    stop = true;
    expect(await reconciling).toBeGreaterThan(1);
    const total = BigInt(costs.reduce((a, b) => a + b, 0));
    expect(await durable(u)).toBe(10_000_000n - total);
    expect(await live(u)).toBe(10_000_000n - total);
    await rebuildQuotas(deps, [u.userId], { mode: 'refresh' });
    expect(await live(u)).toBe(10_000_000n - total);
    expect(await redis.hlen(deps.keys.quotaPending(u.userId))).toBe(0);
  });

  it('brings a flushed Redis back exactly, charges in flight included, and drops pending charges that never arrived', async () => {
    const u = await user(50_000n);
    await rebuildQuotas(deps, [u.userId], { mode: 'seed' });
    await settleRequest(redis, deps.keys, u, { requestId: 'f1', costNanos: 1_000, tokens: 0 });
    await workerSettles(u, 'f1', 1_000);
    await settleRequest(redis, deps.keys, u, { requestId: 'f2', costNanos: 2_000, tokens: 0 });
    // Redis loses everything while f2 is still on its way to Postgres.
    await redis.del(
      deps.keys.quotaBalance(u.userId),
      deps.keys.quotaPending(u.userId),
      deps.keys.quotaKeySpent(u.userId),
    );
    // The first request after the flush seeds from Postgres (f2 is not in it yet) ...
    await rebuildQuotas(deps, [u.userId], { mode: 'seed' });
    expect(await live(u)).toBe(49_000n);
    // ... f2 lands in Postgres, and the next reconciliation takes it into account.
    await workerSettles(u, 'f2', 2_000);
    await rebuildQuotas(deps, [u.userId], { mode: 'refresh' });
    expect(await live(u)).toBe(47_000n);
    expect(await durable(u)).toBe(47_000n);

    // An edge debited f3 but died before its log left: after the max age it counts as never charged.
    const t0 = Date.now();
    await settleRequest(redis, deps.keys, u, { requestId: 'f3', costNanos: 5_000, tokens: 0 }, t0);
    expect(await live(u)).toBe(42_000n);
    await rebuildQuotas(deps, [u.userId], {
      mode: 'refresh',
      pendingMaxAgeMs: 60_000,
      now: () => t0 + 30_000,
    });
    expect(await live(u)).toBe(42_000n);
    await rebuildQuotas(deps, [u.userId], {
      mode: 'refresh',
      pendingMaxAgeMs: 60_000,
      now: () => t0 + 61_000,
    });
    expect(await live(u)).toBe(47_000n);
    expect(await redis.hlen(deps.keys.quotaPending(u.userId))).toBe(0);
  });

  it('leaves users alone as the mode says, and ignores unknown users', async () => {
    const u = await user(10n);
    const ghost = '00000000-0000-4000-8000-0000000000ee';
    const refresh = await rebuildQuotas(deps, [u.userId, ghost], { mode: 'refresh' });
    expect(refresh.get(u.userId)).toEqual({ written: false, balanceNanos: null });
    expect(refresh.has(ghost)).toBe(false);
    expect(await live(u)).toBeNull();
    await rebuildQuotas(deps, [u.userId], { mode: 'force' });
    expect(await live(u)).toBe(10n);
  });

  it('keeps amounts beyond 2^53 exact', async () => {
    const u = await user(2n ** 62n);
    await rebuildQuotas(deps, [u.userId], { mode: 'seed' });
    await settleRequest(redis, deps.keys, u, { requestId: 'big', costNanos: 3, tokens: 0 });
    await rebuildQuotas(deps, [u.userId], { mode: 'force' });
    expect(await live(u)).toBe(2n ** 62n - 3n);
  });

  it('loads a burst of cold accounts in one call, each exactly its own balance and key spend', async () => {
    const users = await Promise.all(Array.from({ length: 40 }, (_, i) => user(1_000_000n + BigInt(i) * 7n)));
    // One of them has a charge in Postgres already, and one an edge debit Postgres does not hold yet.
    await insertCharges(t.db, [
      { requestId: 'burst-c', userId: users[3]!.userId, keyId: users[3]!.keyId, amountNanos: 11 },
    ]);
    await settleRequest(redis, deps.keys, users[5]!, { requestId: 'burst-p', costNanos: 13, tokens: 0 });
    const loaded: string[] = [];
    const results = await rebuildQuotas(
      deps,
      users.map((u) => u.userId),
      { mode: 'seed', onLoaded: (slot) => loaded.push(slot) },
    );
    expect(loaded.sort()).toEqual(users.map((u) => u.userId).sort());
    for (const [i, u] of users.entries()) {
      const expected = 1_000_000n + BigInt(i) * 7n - (i === 3 ? 11n : 0n) - (i === 5 ? 13n : 0n);
      expect(results.get(u.userId)).toEqual({ written: true, balanceNanos: expected });
      expect(await live(u)).toBe(expected);
      const spent = i === 3 ? '11' : i === 5 ? '13' : '0';
      expect(await redis.hget(deps.keys.quotaKeySpent(u.userId), u.keyId)).toBe(spent);
    }
  });

  it('reads pending ids only when an account holds some: one script call without, two with (settled dropped, unsettled subtracted)', async () => {
    const [bare, held] = await Promise.all([user(1_000n), user(1_000n)]);
    // held: one charge Postgres settled (still pending in Redis) and one it has not.
    await settleRequest(redis, deps.keys, held, { requestId: 'p-settled', costNanos: 100, tokens: 0 });
    await settleRequest(redis, deps.keys, held, { requestId: 'p-open', costNanos: 30, tokens: 0 });
    await insertCharges(t.db, [
      { requestId: 'p-settled', userId: held.userId, keyId: held.keyId, amountNanos: 100 },
    ]);
    const scripts = jest.spyOn(redis, 'evalsha');
    const reads = jest.spyOn(redis, 'hkeys');
    await rebuildQuotas(deps, [bare.userId], { mode: 'seed' });
    expect(scripts.mock.calls.length).toBe(1);
    await rebuildQuotas(deps, [held.userId], { mode: 'seed' });
    expect(scripts.mock.calls.length).toBe(3);
    expect(reads).not.toHaveBeenCalled();
    scripts.mockRestore();
    reads.mockRestore();
    expect(await live(bare)).toBe(1_000n);
    expect(await live(held)).toBe(1_000n - 100n - 30n);
    expect(await redis.hkeys(deps.keys.quotaPending(held.userId))).toEqual(['p-open']);
  });

  it('holds the balance lock from the read to the Redis write: a charge the worker commits meanwhile is counted once', async () => {
    const u = await user(1_000_000n);
    // The edge debited r-cold while the account was cold: only its pending entry is in Redis.
    await settleRequest(redis, deps.keys, u, { requestId: 'r-cold', costNanos: 500, tokens: 0 });
    let worker: Promise<void> | null = null;
    let workerDoneBeforeScript = false;
    // The worker settles r-cold between the load's read and its script, and is given 200 ms to do
    // it. Without the lock it would commit and drop the pending entry, and the script would write
    // the balance read before the charge (500 handed back).
    const script =
      (name: 'evalsha' | 'eval') =>
      async (...args: unknown[]) => {
        if (worker === null) {
          worker = workerSettles(u, 'r-cold', 500).then(() => undefined);
          let done = false;
          void worker.then(() => (done = true));
          await sleep(200);
          workerDoneBeforeScript = done;
        }
        return (redis[name] as (...a: unknown[]) => Promise<unknown>).apply(redis, args);
      };
    const held = new Proxy(redis, {
      get: (target, prop) =>
        prop === 'evalsha' || prop === 'eval' ? script(prop) : Reflect.get(target, prop, target),
    });
    await rebuildQuotas({ ...deps, redis: held }, [u.userId], { mode: 'seed' });
    await worker;
    expect(workerDoneBeforeScript).toBe(false);
    expect(await durable(u)).toBe(999_500n);
    expect(await live(u)).toBe(999_500n);
    expect(await redis.hkeys(deps.keys.quotaPending(u.userId))).toEqual([]);
  });
});
