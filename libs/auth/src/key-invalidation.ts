import { type RedisClient, type RedisKeys } from '#libs/redis';

/**
 * Call after a key's row changed in Postgres (revoked, expired, regrouped): drops the Redis copy and
 * tells every edge to drop its in-memory copy, in one MULTI so no edge can refill from a stale copy.
 */
export async function announceKeyInvalidation(
  redis: RedisClient,
  keys: RedisKeys,
  keyHash: string,
): Promise<void> {
  const replies = await redis
    .multi()
    .del(keys.apiKey(keyHash))
    .publish(keys.keyInvalidationChannel, keyHash)
    .exec();
  const failed = replies?.find(([err]) => err !== null);
  if (!replies || failed) throw (failed?.[0] as Error | undefined) ?? new Error('key invalidation aborted');
}
