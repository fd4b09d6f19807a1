import { type RedisClient, type RedisKeys, TTL } from '#libs/redis';

/**
 * Call after a key's row changed in Postgres (revoked, expired, regrouped): bumps the key's
 * generation (so a cache fill that read Postgres before the change cannot write its copy back),
 * drops the Redis copy and tells every edge to drop its in-memory copy, in one MULTI on the key's
 * slot. Callers in the console go through its outbox (KeyInvalidations), which retries until this
 * succeeds.
 */
export async function announceKeyInvalidation(
  redis: RedisClient,
  keys: RedisKeys,
  keyHash: string,
): Promise<void> {
  const generation = keys.apiKeyGeneration(keyHash);
  const replies = await redis
    .multi()
    .incr(generation)
    .expire(generation, TTL.apiKeyGenerationSeconds)
    .del(keys.apiKey(keyHash))
    .publish(keys.keyInvalidationChannel, keyHash)
    .exec();
  const failed = replies?.find(([err]) => err !== null);
  if (!replies || failed) throw (failed?.[0] as Error | undefined) ?? new Error('key invalidation aborted');
}
