import { randomBytes } from 'node:crypto';
import { type RedisTarget } from '#libs/config';
import { createRedis, deleteMatching, redisKeys } from '#libs/redis';

export const TEST_REDIS_URL = process.env.REDIS_URL || 'redis://127.0.0.1:6379';

/** A key prefix unique to one test file, so parallel runs never see each other's keys. */
export function uniqueRedisPrefix(label = 't'): string {
  return `gwtest-${label}-${randomBytes(5).toString('hex')}`;
}

/** Deletes every key under the prefix (including BullMQ's hash-tagged `{prefix}:` keys). */
export async function dropRedisPrefix(
  prefix: string,
  target: RedisTarget | string = TEST_REDIS_URL,
): Promise<void> {
  const redis = createRedis(target, { name: 'test-cleanup' });
  try {
    await deleteMatching(redis, redisKeys(prefix).allKeys);
  } finally {
    redis.disconnect();
  }
}
