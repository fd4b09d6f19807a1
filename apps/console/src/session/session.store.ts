import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { type RedisClient, type RedisKeys } from '#libs/redis';
import { type ConsoleSettings } from '../console-settings.js';
import { REDIS, REDIS_KEYS, SETTINGS } from '../tokens.js';

export interface SessionData {
  readonly userId: string;
  readonly csrfToken: string;
  readonly createdAt: string;
}

export interface NewSession {
  /** Goes into the cookie; only its hash is stored. */
  readonly id: string;
  readonly data: SessionData;
}

const sha256 = (s: string): string => createHash('sha256').update(s).digest('hex');
const SESSION_ID = /^[\w-]{43}$/;

/** Equal strings in time independent of where they differ. */
export function safeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/**
 * Console sessions in Redis, keyed by the SHA-256 of the session id so a Redis dump holds no usable
 * cookie. Sliding expiry: every read renews the TTL. A set per user lists their sessions, so
 * disabling a user ends all of them.
 */
@Injectable()
export class SessionStore {
  constructor(
    @Inject(REDIS) private readonly redis: RedisClient,
    @Inject(REDIS_KEYS) private readonly keys: RedisKeys,
    @Inject(SETTINGS) private readonly settings: ConsoleSettings,
  ) {}

  async create(userId: string): Promise<NewSession> {
    const id = randomBytes(32).toString('base64url');
    const data: SessionData = {
      userId,
      csrfToken: randomBytes(32).toString('base64url'),
      createdAt: new Date().toISOString(),
    };
    const ttl = this.settings.sessionTtlMs;
    const hash = sha256(id);
    const userSet = this.keys.consoleUserSessions(userId);
    await this.redis.set(this.keys.consoleSession(hash), JSON.stringify(data), 'PX', ttl);
    // Separate commands, not MULTI: the two keys may sit on different cluster slots.
    await this.redis.sadd(userSet, hash);
    await this.redis.pexpire(userSet, ttl);
    return { id, data };
  }

  /** The session behind a cookie value, renewing its TTL; null when unknown, expired or malformed. */
  async get(id: string): Promise<SessionData | null> {
    if (!SESSION_ID.test(id)) return null;
    const text = await this.redis.getex(
      this.keys.consoleSession(sha256(id)),
      'PX',
      this.settings.sessionTtlMs,
    );
    if (text === null) return null;
    let data: SessionData;
    try {
      data = JSON.parse(text) as SessionData;
    } catch {
      return null;
    }
    // The user's session list must outlive every session in it, or disabling would miss some.
    await this.redis.pexpire(this.keys.consoleUserSessions(data.userId), this.settings.sessionTtlMs);
    return data;
  }

  async destroy(id: string, userId?: string): Promise<void> {
    if (!SESSION_ID.test(id)) return;
    const hash = sha256(id);
    await this.redis.del(this.keys.consoleSession(hash));
    if (userId) await this.redis.srem(this.keys.consoleUserSessions(userId), hash);
  }

  /** Ends every session of a user (disabled, or their role changed). */
  async destroyAllOf(userId: string): Promise<void> {
    const userSet = this.keys.consoleUserSessions(userId);
    const hashes = await this.redis.smembers(userSet);
    await Promise.all(hashes.map((h) => this.redis.del(this.keys.consoleSession(h))));
    await this.redis.del(userSet);
  }
}
