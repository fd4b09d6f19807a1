import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { type Redis } from 'ioredis';
import { insertCharges, insertConsoleUser, ledgerBalance, listGrants } from '#libs/db';
import { createRedis, redisKeys } from '#libs/redis';
import { createTestDatabase, seedUserWithKey, type TestDatabase } from '../../../test/support/db.js';
import { dropRedisPrefix, TEST_REDIS_URL, uniqueRedisPrefix } from '../../../test/support/redis.js';
import { grantCredits, readBalance } from './grants.js';
import { type QuotaDeps, rebuildQuotas } from './rebuild.js';

const prefix = uniqueRedisPrefix('grants');
let t: TestDatabase;
let redis: Redis;
let deps: QuotaDeps;

beforeAll(async () => {
  t = await createTestDatabase('grants');
  redis = createRedis(TEST_REDIS_URL, { name: 'grants' });
  deps = { db: t.db, redis, keys: redisKeys(prefix) };
});
afterAll(async () => {
  redis.disconnect();
  await t.drop();
  await dropRedisPrefix(prefix);
});

describe('grantCredits', () => {
  it('writes a ledger row and the durable balance, and leaves a cold Redis cold', async () => {
    const { userId } = await seedUserWithKey(t.db, { grantNanos: 0n });
    const admin = await seedUserWithKey(t.db, { grantNanos: 0n });
    expect(
      await grantCredits(deps, { userId, nanos: 5_000_000_000n, grantedBy: admin.userId, note: 'top-up' }),
    ).toBe(5_000_000_000n);
    expect(await listGrants(t.db, userId)).toEqual([
      expect.objectContaining({ amount_nanos: '5000000000', granted_by: admin.userId, note: 'top-up' }),
    ]);
    expect(await readBalance(deps, userId)).toEqual({
      balanceNanos: 5_000_000_000n,
      spentNanos: 0n,
      liveNanos: null,
    });
    expect(await redis.exists(deps.keys.quotaBalance(userId))).toBe(0);
  });

  it('adds to a loaded Redis copy, so a user out of credits can spend again at once', async () => {
    const { userId } = await seedUserWithKey(t.db, { grantNanos: 100n });
    await insertCharges(t.db, [{ requestId: `g-${userId}`, userId, keyId: null, amountNanos: 150 }]);
    await rebuildQuotas(deps, [userId], { mode: 'seed' });
    expect((await readBalance(deps, userId)).liveNanos).toBe(-50n);
    expect(await grantCredits(deps, { userId, nanos: 1_000n, grantedBy: null, note: 'refill' })).toBe(950n);
    expect(await readBalance(deps, userId)).toEqual({
      balanceNanos: 950n,
      spentNanos: 150n,
      liveNanos: 950n,
    });
  });

  it('takes credits back with a negative grant and keeps balance = grants - charges', async () => {
    const { userId } = await seedUserWithKey(t.db, { grantNanos: 2_000n });
    await insertCharges(t.db, [{ requestId: `n-${userId}`, userId, keyId: null, amountNanos: 300 }]);
    expect(await grantCredits(deps, { userId, nanos: -700n, grantedBy: null, note: 'correction' })).toBe(
      1_000n,
    );
    expect(await ledgerBalance(t.db, userId)).toBe(1_000n);
  });

  it('records the default grant of a new user in the ledger', async () => {
    const { userId } = await seedUserWithKey(t.db, { grantNanos: 42n });
    expect(await listGrants(t.db, userId)).toEqual([
      expect.objectContaining({ amount_nanos: '42', granted_by: null, note: 'default grant' }),
    ]);
    expect(await ledgerBalance(t.db, userId)).toBe(42n);
  });

  it('records the default grant of a user created in the console in the ledger', async () => {
    const user = await insertConsoleUser(t.db, {
      email: 'console-grant@example.com',
      passwordHash: 'not-a-real-hash',
      role: 'member',
      groups: null,
      grantNanos: 77n,
    });
    expect(await listGrants(t.db, user!.id)).toEqual([
      expect.objectContaining({ amount_nanos: '77', granted_by: null, note: 'default grant' }),
    ]);
    expect(await readBalance(deps, user!.id)).toMatchObject({ balanceNanos: 77n });
  });

  it('refuses a zero grant and an unknown user without touching Redis', async () => {
    const { userId } = await seedUserWithKey(t.db, { grantNanos: 0n });
    await expect(grantCredits(deps, { userId, nanos: 0n, grantedBy: null, note: '' })).rejects.toThrow(
      RangeError,
    );
    const ghost = '00000000-0000-4000-8000-0000000000ff';
    await redis.set(deps.keys.quotaBalance(ghost), '7');
    await expect(
      grantCredits(deps, { userId: ghost, nanos: 5n, grantedBy: null, note: '' }),
    ).rejects.toMatchObject({
      code: '23503',
    });
    expect(await redis.get(deps.keys.quotaBalance(ghost))).toBe('7');
  });
});
