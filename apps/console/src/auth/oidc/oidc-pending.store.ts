import { createHash } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { type RedisClient, type RedisKeys } from '#libs/redis';
import { REDIS, REDIS_KEYS } from '../../tokens.js';

/** What the callback needs to finish a sign-in the start route began. */
export interface PendingSignIn {
  readonly codeVerifier: string;
  readonly nonce: string;
  /** SHA-256 of the browser-binding cookie's value: only the browser that started may finish. */
  readonly browserHash: string;
  /** Where the console goes once signed in (a path of the console). */
  readonly next: string;
}

/** A callback's claim on a pending sign-in: taken, or refused with the sign-in left as it was. */
export type PendingTake =
  | { readonly outcome: 'taken'; readonly pending: PendingSignIn }
  | { readonly outcome: 'unknown' }
  | { readonly outcome: 'another-browser' };

export const sha256 = (s: string): string => createHash('sha256').update(s).digest('hex');

/**
 * Deletes and returns the pending sign-in only when its browser hash is ARGV[1]; 0 when it is
 * another's (the sign-in stays), nil when there is none. Not a constant-time comparison, and need
 * not be: both sides are SHA-256 of a 256-bit secret, and learning the hash gives no preimage.
 */
const TAKE_IF_BOUND = `
local text = redis.call('GET', KEYS[1])
if not text then return nil end
if cjson.decode(text).browserHash ~= ARGV[1] then return 0 end
redis.call('DEL', KEYS[1])
return text`;

/**
 * Sign-ins under way, keyed by the hash of their state, with a short TTL. `take` checks the
 * browser and deletes in one script, so a state is used once however many callbacks race with it,
 * and a forged callback (the state leaked, not the browser's cookie) cannot spend the genuine one.
 */
@Injectable()
export class OidcPendingStore {
  constructor(
    @Inject(REDIS) private readonly redis: RedisClient,
    @Inject(REDIS_KEYS) private readonly keys: RedisKeys,
  ) {}

  async put(state: string, pending: PendingSignIn, ttlMs: number): Promise<void> {
    await this.redis.set(this.keys.consoleOidcPending(sha256(state)), JSON.stringify(pending), 'PX', ttlMs);
  }

  /**
   * The sign-in of this state when `browserBinding` (the cookie's value; undefined without one) is
   * the one it was started with, deleted as it is read; else what stood in the way, nothing deleted.
   */
  async take(state: string, browserBinding: string | undefined): Promise<PendingTake> {
    // No cookie: a hash no sign-in has, so an unknown state still reads as unknown.
    const browserHash = browserBinding === undefined ? '' : sha256(browserBinding);
    const answer = (await this.redis.eval(
      TAKE_IF_BOUND,
      1,
      this.keys.consoleOidcPending(sha256(state)),
      browserHash,
    )) as string | number | null;
    if (answer === null) return { outcome: 'unknown' };
    if (typeof answer !== 'string') return { outcome: 'another-browser' };
    return { outcome: 'taken', pending: JSON.parse(answer) as PendingSignIn };
  }
}
