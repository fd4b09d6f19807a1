import { createHash } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { type RedisClient, type RedisKeys } from '#libs/redis';
import { type ConsoleSettings } from '../console-settings.js';
import { REDIS, REDIS_KEYS, SETTINGS } from '../tokens.js';

/** Keys hold a hash of the email: bounded length, and no addresses sitting in Redis. */
const emailSubject = (email: string): string => createHash('sha256').update(email).digest('hex');

/**
 * Failed sign-ins per email and per client IP in a fixed window (INCR, expiry set by the first
 * failure). Over either limit, sign-in is refused until that counter expires.
 */
@Injectable()
export class SignInThrottle {
  constructor(
    @Inject(REDIS) private readonly redis: RedisClient,
    @Inject(REDIS_KEYS) private readonly keys: RedisKeys,
    @Inject(SETTINGS) private readonly settings: ConsoleSettings,
  ) {}

  /** Seconds until sign-in is allowed again, or 0 when it is allowed now. */
  async retryAfterSeconds(email: string, ip: string): Promise<number> {
    const { maxFailuresPerEmail, maxFailuresPerIp } = this.settings.signIn;
    const waits = await Promise.all([
      this.wait(this.keys.consoleSignInFailures('email', emailSubject(email)), maxFailuresPerEmail),
      this.wait(this.keys.consoleSignInFailures('ip', ip), maxFailuresPerIp),
    ]);
    return Math.max(...waits);
  }

  async recordFailure(email: string, ip: string): Promise<void> {
    await Promise.all([
      this.bump(this.keys.consoleSignInFailures('email', emailSubject(email))),
      this.bump(this.keys.consoleSignInFailures('ip', ip)),
    ]);
  }

  /** A good password clears the email's count (not the IP's: one account must not unlock a sprayer). */
  async recordSuccess(email: string): Promise<void> {
    await this.redis.del(this.keys.consoleSignInFailures('email', emailSubject(email)));
  }

  private async wait(key: string, max: number): Promise<number> {
    const [count, ttl] = await Promise.all([this.redis.get(key), this.redis.pttl(key)]);
    if (count === null || Number(count) < max) return 0;
    return Math.max(1, Math.ceil((ttl > 0 ? ttl : this.settings.signIn.windowMs) / 1000));
  }

  private async bump(key: string): Promise<void> {
    // One key per MULTI, so it works on Redis Cluster; NX keeps the window fixed from the first failure.
    await this.redis.multi().incr(key).pexpire(key, this.settings.signIn.windowMs, 'NX').exec();
  }
}
