import { type RedisClient, type RedisKeys } from '#libs/redis';

/** The Redis copy of a key (null when absent) and the key's invalidation generation ('' = never bumped). */
export interface CachedKey {
  readonly value: string | null;
  readonly generation: string;
}

/**
 * Writes the copy only if the generation is still the one read before Postgres was asked: an
 * invalidation in between (announceKeyInvalidation) bumped it, and the copy may be from before it.
 * KEYS: copy, generation. ARGV: generation read, value, TTL seconds. Returns 1 written, 0 stale.
 */
const FILL_IF_GENERATION = `
if (redis.call('GET', KEYS[2]) or '') ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[2], 'EX', ARGV[3])
return 1`;

/** One round trip: the copy and the generation share a slot (`{<hash>}`), so MGET works on a Cluster. */
export async function readCachedKey(redis: RedisClient, keys: RedisKeys, hash: string): Promise<CachedKey> {
  const [value, generation] = await redis.mget(keys.apiKey(hash), keys.apiKeyGeneration(hash));
  return { value: value ?? null, generation: generation ?? '' };
}

/** Fills the Redis copy unless the key was invalidated since `read`; whether it was written. */
export async function fillCachedKey(
  redis: RedisClient,
  keys: RedisKeys,
  hash: string,
  fill: { readonly generation: string; readonly value: string; readonly ttlSeconds: number },
): Promise<boolean> {
  const written = await redis.eval(
    FILL_IF_GENERATION,
    2,
    keys.apiKey(hash),
    keys.apiKeyGeneration(hash),
    fill.generation,
    fill.value,
    fill.ttlSeconds,
  );
  return written === 1;
}
