import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { type Redis } from 'ioredis';
import { type GatewayConfig } from '#libs/config';
import { getQuotaBalance, insertTeam } from '#libs/db';
import { accountSlot, grantTeamCredits, rebuildQuotas } from '#libs/quota';
import { createRedis, type RedisKeys, redisKeys } from '#libs/redis';
import { createTestDatabase, seedUserWithKey, type TestDatabase } from '../../../../test/support/db.js';
import { dropRedisPrefix, TEST_REDIS_URL, uniqueRedisPrefix } from '../../../../test/support/redis.js';
import { QuotaReconciler } from './quota-reconciler.service.js';

const prefix = uniqueRedisPrefix('reconciler');
const keys: RedisKeys = redisKeys(prefix);
let t: TestDatabase;
let redis: Redis;
let reconciler: QuotaReconciler;

beforeAll(async () => {
  t = await createTestDatabase('reconciler');
  redis = createRedis(TEST_REDIS_URL, { name: 'reconciler' });
  const config = {
    quota: { reconcile_interval_ms: 60_000, pending_max_age_ms: 86_400_000 },
    groups: {}, // budgets counting a group's models resolve it here
  } as GatewayConfig;
  reconciler = new QuotaReconciler(t.db, redis, keys, config);
});
afterAll(async () => {
  redis.disconnect();
  await t.drop();
  await dropRedisPrefix(prefix);
});

describe('QuotaReconciler', () => {
  it('a sweep rebuilds every loaded user across pages and leaves cold users cold', async () => {
    const users: string[] = [];
    for (let i = 0; i < 450; i++)
      users.push((await seedUserWithKey(t.db, { grantNanos: BigInt(1_000 + i) })).userId);
    const loaded = users.filter((_, i) => i % 3 === 0);
    await rebuildQuotas({ db: t.db, redis, keys }, loaded, { mode: 'seed' });
    // Every loaded copy drifted (say, debits that Postgres never received).
    await Promise.all(loaded.map((u) => redis.set(keys.quotaBalance(u), '-5')));

    expect(await reconciler.sweep()).toEqual({ checked: loaded.length, rebuilt: loaded.length });
    for (const u of loaded)
      expect(await redis.get(keys.quotaBalance(u))).toBe((await getQuotaBalance(t.db, u))!.balance_nanos);
    const cold = users.filter((_, i) => i % 3 !== 0);
    expect(await redis.exists(...cold.map((u) => keys.quotaBalance(u)))).toBe(0);
  }, 60_000);

  it('on demand, rebuilds the given users even when Redis held no copy', async () => {
    const { userId } = await seedUserWithKey(t.db, { grantNanos: 123n });
    expect(await reconciler.reconcileUsers([userId, '00000000-0000-4000-8000-0000000000dd'])).toEqual(
      new Map([[userId, 123n]]),
    );
    expect(await redis.get(keys.quotaBalance(userId))).toBe('123');
  });

  it("sweeps a loaded team's copy after the users', and rebuilds a team on demand by its slot", async () => {
    const loaded = await insertTeam(t.db, { name: 'swept', groups: [], createdBy: null });
    const cold = await insertTeam(t.db, { name: 'cold', groups: [], createdBy: null });
    const deps = { db: t.db, redis, keys };
    await grantTeamCredits(deps, { teamId: loaded.id, nanos: 700n, grantedBy: null, note: '' });
    await grantTeamCredits(deps, { teamId: cold.id, nanos: 50n, grantedBy: null, note: '' });
    const slot = accountSlot({ kind: 'team', id: loaded.id });
    await rebuildQuotas(deps, [slot], { mode: 'seed' });
    await redis.set(keys.quotaBalance(slot), '-5');

    const swept = await reconciler.sweep();
    expect(swept.rebuilt).toBeGreaterThanOrEqual(1);
    expect(await redis.get(keys.quotaBalance(slot))).toBe('700');
    const coldSlot = accountSlot({ kind: 'team', id: cold.id });
    expect(await redis.exists(keys.quotaBalance(coldSlot))).toBe(0);
    expect(await reconciler.reconcileUsers([coldSlot])).toEqual(new Map([[coldSlot, 50n]]));
  });
});
