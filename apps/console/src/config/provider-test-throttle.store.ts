import { Inject, Injectable } from '@nestjs/common';
import { type RedisClient, type RedisKeys } from '#libs/redis';
import { ApiError } from '../http/api-error.js';
import { REDIS, REDIS_KEYS } from '../tokens.js';

/**
 * A provider test makes the console call an address someone typed: bounded per caller so the
 * console is no scanner of the network behind it. Plenty for a person filling a form.
 */
export const PROVIDER_TESTS_PER_WINDOW = 20;
export const PROVIDER_TEST_WINDOW_MS = 60_000;

/** Provider tests per caller (user id or token) in a fixed window: INCR, expiry set by the first. */
@Injectable()
export class ProviderTestThrottle {
  constructor(
    @Inject(REDIS) private readonly redis: RedisClient,
    @Inject(REDIS_KEYS) private readonly keys: RedisKeys,
  ) {}

  /** Counts one test of `caller`; throws 429 with retry-after once over the window's allowance. */
  async admit(caller: string): Promise<void> {
    const key = this.keys.consoleProviderTests(caller);
    // One key per MULTI, so it works on Redis Cluster; NX keeps the window fixed from the first test.
    const replies = await this.redis
      .multi()
      .incr(key)
      .pexpire(key, PROVIDER_TEST_WINDOW_MS, 'NX')
      .pttl(key)
      .exec();
    const count = Number(replies?.[0]?.[1] ?? 0);
    if (count <= PROVIDER_TESTS_PER_WINDOW) return;
    const ttl = Number(replies?.[2]?.[1] ?? PROVIDER_TEST_WINDOW_MS);
    const seconds = Math.max(1, Math.ceil((ttl > 0 ? ttl : PROVIDER_TEST_WINDOW_MS) / 1000));
    throw new ApiError(
      'rate_limited',
      `Too many provider tests: at most ${PROVIDER_TESTS_PER_WINDOW} a minute. Try again in ${seconds} s.`,
      { 'retry-after': String(seconds) },
    );
  }
}
