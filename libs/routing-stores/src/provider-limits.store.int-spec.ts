import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { type Redis } from 'ioredis';
import { createRedis, redisKeys } from '#libs/redis';
import { dropRedisPrefix, TEST_REDIS_URL, uniqueRedisPrefix } from '../../../test/support/redis.js';
import { acquireProviderSlot, releaseProviderSlot } from './provider-limits.store.js';

const prefix = uniqueRedisPrefix('limits');
const keys = redisKeys(prefix);
let redis: Redis;
let other: Redis;

beforeAll(() => {
  redis = createRedis(TEST_REDIS_URL, { name: 'limits-a' });
  other = createRedis(TEST_REDIS_URL, { name: 'limits-b' });
});

afterAll(async () => {
  redis.disconnect();
  other.disconnect();
  await dropRedisPrefix(prefix);
});

describe('provider limits', () => {
  it('concurrent acquires from two connections never exceed max_concurrency', async () => {
    const limits = { max_concurrency: 3 };
    const results = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        acquireProviderSlot(i % 2 ? redis : other, keys, 'conc', limits, `r${i}`, 60_000),
      ),
    );
    expect(results.filter((r) => r.ok)).toHaveLength(3);
    const refused = results.find((r) => !r.ok);
    expect(refused).toEqual({ ok: false, reason: 'concurrency', retryAfterMs: expect.any(Number) });
    expect(await redis.zcard(keys.providerInflight('conc'))).toBe(3);
  });

  it('a released slot is free again', async () => {
    const limits = { max_concurrency: 1 };
    expect((await acquireProviderSlot(redis, keys, 'rel', limits, 'a', 60_000)).ok).toBe(true);
    expect((await acquireProviderSlot(redis, keys, 'rel', limits, 'b', 60_000)).ok).toBe(false);
    await releaseProviderSlot(redis, keys, 'rel', 'a');
    expect((await acquireProviderSlot(redis, keys, 'rel', limits, 'b', 60_000)).ok).toBe(true);
  });

  it('expired leases (an edge that died holding them) are freed', async () => {
    const limits = { max_concurrency: 2 };
    const t0 = Date.now();
    await acquireProviderSlot(redis, keys, 'exp', limits, 'a', 1_000, t0);
    await acquireProviderSlot(redis, keys, 'exp', limits, 'b', 1_000, t0);
    expect((await acquireProviderSlot(redis, keys, 'exp', limits, 'c', 1_000, t0 + 500)).ok).toBe(false);
    expect((await acquireProviderSlot(redis, keys, 'exp', limits, 'c', 1_000, t0 + 1_001)).ok).toBe(true);
  });

  it('rpm counts starts per minute window and says when the next window opens', async () => {
    const limits = { rpm: 5 };
    const minuteStart = Math.floor(Date.now() / 60_000) * 60_000;
    const t = minuteStart + 10_000;
    const results = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        acquireProviderSlot(redis, keys, 'rpm', limits, `r${i}`, 60_000, t),
      ),
    );
    expect(results.filter((r) => r.ok)).toHaveLength(5);
    expect(results.find((r) => !r.ok)).toEqual({ ok: false, reason: 'rpm', retryAfterMs: 50_000 });
    expect((await acquireProviderSlot(redis, keys, 'rpm', limits, 'next', 60_000, t + 60_000)).ok).toBe(true);
    expect(await redis.ttl(keys.providerRpm('rpm', Math.floor(t / 60_000)))).toBeGreaterThan(60);
  });

  it('a refused rpm check takes no concurrency slot, and a refused slot uses no rpm', async () => {
    const limits = { max_concurrency: 1, rpm: 2 };
    const t = Date.now();
    expect((await acquireProviderSlot(redis, keys, 'both', limits, 'a', 60_000, t)).ok).toBe(true);
    expect(await acquireProviderSlot(redis, keys, 'both', limits, 'b', 60_000, t)).toMatchObject({
      reason: 'concurrency',
    });
    await releaseProviderSlot(redis, keys, 'both', 'a');
    expect((await acquireProviderSlot(redis, keys, 'both', limits, 'c', 60_000, t)).ok).toBe(true);
    await releaseProviderSlot(redis, keys, 'both', 'c');
    expect(await acquireProviderSlot(redis, keys, 'both', limits, 'd', 60_000, t)).toMatchObject({
      reason: 'rpm',
    });
    expect(await redis.zcard(keys.providerInflight('both'))).toBe(0);
  });
});
