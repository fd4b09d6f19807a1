import { createHash, randomBytes } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { type RedisClient, type RedisKeys, TTL } from '#libs/redis';
import { REDIS, REDIS_KEYS } from '../tokens.js';

const sha256 = (s: string): string => createHash('sha256').update(s).digest('hex');

/** One-time setup tokens: only their hash is stored, and using one deletes it (single use). */
@Injectable()
export class SetupTokens {
  constructor(
    @Inject(REDIS) private readonly redis: RedisClient,
    @Inject(REDIS_KEYS) private readonly keys: RedisKeys,
  ) {}

  async issue(): Promise<string> {
    const token = randomBytes(32).toString('base64url');
    await this.redis.set(this.keys.consoleSetupToken(sha256(token)), '1', 'EX', TTL.setupTokenSeconds);
    return token;
  }

  /** True exactly once per issued token (DEL is atomic: two racing uses cannot both win). */
  async consume(token: string): Promise<boolean> {
    return (await this.redis.del(this.keys.consoleSetupToken(sha256(token)))) === 1;
  }
}
