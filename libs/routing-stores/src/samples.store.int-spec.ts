import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { type Redis } from 'ioredis';
import { createRedis, redisKeys } from '#libs/redis';
import { type RouteSample } from '#libs/routing';
import { dropRedisPrefix, TEST_REDIS_URL, uniqueRedisPrefix } from '../../../test/support/redis.js';
import { appendSamples, readSamples } from './samples.store.js';

const prefix = uniqueRedisPrefix('samples-store');
const keys = redisKeys(prefix);
let redis: Redis;

const sample: RouteSample = {
  providerId: 'p',
  model: 'm',
  at: Date.now(),
  outcome: 'ok',
  status: 200,
  latencyMs: 12,
  ttftMs: null,
  retryAfterMs: null,
};

beforeAll(() => {
  redis = createRedis(TEST_REDIS_URL);
});

afterAll(async () => {
  redis.disconnect();
  await dropRedisPrefix(prefix);
});

describe('samples stream', () => {
  it('trims entries older than its time window on append, keeping the new ones readable', async () => {
    // Two stream nodes' worth of entries from long ago (approximate trimming drops whole nodes).
    const old = Date.now() - 10 * 60_000;
    for (let i = 0; i < 250; i++) await redis.xadd(keys.samplesStream, `${old}-${i}`, 'd', '[]');
    expect(await redis.xlen(keys.samplesStream)).toBe(250);

    await appendSamples(redis, keys, [sample]);
    const left = await redis.xrange(keys.samplesStream, '-', '+');
    const oldLeft = left.filter(([id]) => id.startsWith(`${old}-`)).length;
    expect(oldLeft).toBeLessThan(250);
    expect(oldLeft).toBeLessThanOrEqual(100); // at most the node holding the cutoff remains
    const fresh = await readSamples(redis, keys, `${old}-249`, 10);
    expect(fresh.samples).toEqual([sample]);
  });
});
