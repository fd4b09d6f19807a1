import { createHash } from 'node:crypto';
import { type RedisClient, type RedisKeys } from '#libs/redis';

/** A provider's limits as configured (`providers[].limits`); both optional. */
export interface ProviderLimits {
  readonly max_concurrency?: number | undefined;
  readonly rpm?: number | undefined;
}

export type SlotResult =
  | { readonly ok: true }
  | { readonly ok: false; readonly reason: 'concurrency' | 'rpm'; readonly retryAfterMs: number };

/** When a concurrency slot is full, how soon a client may try again (slots free as requests end). */
const CONCURRENCY_RETRY_MS = 1_000;

/**
 * Both checks in one atomic step, so two edges can never both take the last slot:
 * 1. drop expired leases (a crashed edge's slots come back after the lease), then ZCARD < max;
 * 2. the minute's INCR counter < rpm;
 * and only when both pass, take the lease (ZADD) and count the request (INCR + EXPIRE).
 * KEYS: inflight zset, rpm counter (same hash tag: one Cluster slot).
 * ARGV: now ms, lease expiry ms, lease id, max concurrency (0 = none), rpm (0 = none), rpm TTL s.
 * Returns 0 (ok), 1 (concurrency full) or 2 (rpm used up).
 */
const ACQUIRE = `
local maxc = tonumber(ARGV[4])
local rpm = tonumber(ARGV[5])
if maxc > 0 then
  redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
  if redis.call('ZCARD', KEYS[1]) >= maxc then return 1 end
end
if rpm > 0 then
  local used = tonumber(redis.call('GET', KEYS[2]) or '0')
  if used >= rpm then return 2 end
  redis.call('INCR', KEYS[2])
  redis.call('EXPIRE', KEYS[2], ARGV[6])
end
if maxc > 0 then
  redis.call('ZADD', KEYS[1], ARGV[2], ARGV[3])
  redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[2]) - tonumber(ARGV[1]))
end
return 0
`;
const ACQUIRE_SHA = createHash('sha1').update(ACQUIRE).digest('hex');

/**
 * Takes a slot at a limited provider for one attempt. `leaseMs` bounds how long a slot is held if
 * the edge dies before releasing it (the request's total timeout). Only call for providers with
 * limits: unlimited ones pay no Redis round trip.
 */
export async function acquireProviderSlot(
  redis: RedisClient,
  keys: RedisKeys,
  providerId: string,
  limits: ProviderLimits,
  leaseId: string,
  leaseMs: number,
  now = Date.now(),
): Promise<SlotResult> {
  const minute = Math.floor(now / 60_000);
  const args = [
    keys.providerInflight(providerId),
    keys.providerRpm(providerId, minute),
    now,
    now + leaseMs,
    leaseId,
    limits.max_concurrency ?? 0,
    limits.rpm ?? 0,
    // The counter outlives its minute a little, so a slow clock on another edge still sees it.
    120,
  ];
  // EVALSHA: the script body crosses the wire once per Redis server, not once per request.
  const result = await redis.evalsha(ACQUIRE_SHA, 2, ...args).catch((err: Error) => {
    if (!err.message.startsWith('NOSCRIPT')) throw err;
    return redis.eval(ACQUIRE, 2, ...args);
  });
  if (result === 0) return { ok: true };
  if (result === 1) return { ok: false, reason: 'concurrency', retryAfterMs: CONCURRENCY_RETRY_MS };
  return { ok: false, reason: 'rpm', retryAfterMs: (minute + 1) * 60_000 - now };
}

/** Gives the concurrency slot back (a no-op for rpm, which counts starts). */
export async function releaseProviderSlot(
  redis: RedisClient,
  keys: RedisKeys,
  providerId: string,
  leaseId: string,
): Promise<void> {
  await redis.zrem(keys.providerInflight(providerId), leaseId);
}
