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

export const sha256 = (s: string): string => createHash('sha256').update(s).digest('hex');

/**
 * Sign-ins under way, keyed by the hash of their state, with a short TTL. `take` reads and deletes
 * in one command, so a state is used once however many callbacks race with it.
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

  /** The sign-in of this state, deleted as it is read; null when unknown, expired or already used. */
  async take(state: string): Promise<PendingSignIn | null> {
    const text = await this.redis.getdel(this.keys.consoleOidcPending(sha256(state)));
    return text === null ? null : (JSON.parse(text) as PendingSignIn);
  }
}
