import { Inject, Injectable, Logger } from '@nestjs/common';
import { type ChargeInput } from '#libs/db';
import { forgetSettled } from '#libs/quota';
import { type RedisClient, type RedisKeys } from '#libs/redis';
import { REDIS, REDIS_KEYS } from '../tokens.js';

/**
 * After a batch committed, its charges leave the Redis pending sets the edges wrote them to, so
 * those sets hold only what Postgres does not have yet. Fire and forget: a missed removal only
 * leaves an entry that reconciliation finds settled and drops.
 */
@Injectable()
export class PendingCharges {
  private readonly logger = new Logger(PendingCharges.name);

  constructor(
    @Inject(REDIS) private readonly redis: RedisClient,
    @Inject(REDIS_KEYS) private readonly keys: RedisKeys,
  ) {}

  settled(charges: readonly ChargeInput[]): void {
    if (charges.length === 0) return;
    forgetSettled(this.redis, this.keys, charges).catch((err: Error) =>
      this.logger.warn(`settled charges left pending in Redis (reconciliation drops them): ${err.message}`),
    );
  }
}
