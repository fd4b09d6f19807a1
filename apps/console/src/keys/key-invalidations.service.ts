import {
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
} from '@nestjs/common';
import { type Kysely } from 'kysely';
import { announceKeyInvalidation } from '#libs/auth';
import {
  changeKeys,
  type Database,
  deleteKeyInvalidations,
  type KeyChange,
  type KeyInvalidation,
  pendingKeyInvalidations,
} from '#libs/db';
import { type RedisClient, type RedisKeys } from '#libs/redis';
import { ANNOUNCE_REDIS, DB, REDIS_KEYS } from '../tokens.js';

/** Whether every edge was told (`announced`) or the outbox still holds the announcement (`pending`). */
export type Announcement = 'announced' | 'pending';

/** How often announcements still owed (made while Redis was unreachable) are retried. */
export const RELAY_INTERVAL_MS = 1_000;
const RELAY_BATCH = 200;

/**
 * Every key change the edges must hear of goes through here: the change and its outbox rows are
 * written in one transaction, announced right after, and whatever could not be announced (Redis
 * unreachable) is retried by the relay until it is. Announcing twice is harmless (another
 * generation bump, delete and message), so console replicas relay without coordinating.
 */
@Injectable()
export class KeyInvalidations implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(KeyInvalidations.name);
  private timer: NodeJS.Timeout | null = null;
  private relaying: Promise<number> | null = null;
  private failing = false;

  constructor(
    @Inject(DB) private readonly db: Kysely<Database>,
    @Inject(ANNOUNCE_REDIS) private readonly redis: RedisClient,
    @Inject(REDIS_KEYS) private readonly keys: RedisKeys,
  ) {}

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => void this.relay(), RELAY_INTERVAL_MS);
    this.timer.unref();
  }

  async onApplicationShutdown(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.relaying;
  }

  /** Makes the change (see changeKeys), then announces it; a failed announcement stays owed. */
  async change<T>(change: KeyChange<T>): Promise<{ result: T; invalidation: Announcement }> {
    const { result, owed } = await changeKeys(this.db, change);
    const announced = await this.announce(owed);
    return { result, invalidation: announced === owed.length ? 'announced' : 'pending' };
  }

  /** One pass over the outbox (skipped while the previous one runs); how many were announced. */
  relay(): Promise<number> {
    this.relaying ??= pendingKeyInvalidations(this.db, RELAY_BATCH)
      .then((owed) => this.announce(owed))
      .catch((err: Error) => {
        this.logger.warn(`key invalidation outbox not readable: ${err.message}`);
        return 0;
      })
      .finally(() => (this.relaying = null));
    return this.relaying;
  }

  private async announce(owed: readonly KeyInvalidation[]): Promise<number> {
    if (owed.length === 0) return 0;
    const results = await Promise.allSettled(
      owed.map((row) => announceKeyInvalidation(this.redis, this.keys, row.key_hash)),
    );
    const done = owed.filter((_, i) => results[i]!.status === 'fulfilled').map((row) => row.id);
    this.noteOutcome(
      owed.length - done.length,
      results.find((r) => r.status === 'rejected'),
    );
    // Left in the outbox if this fails: announced once more by the relay, which is harmless.
    await deleteKeyInvalidations(this.db, done).catch((err: Error) =>
      this.logger.warn(`announced key invalidations not cleared from the outbox: ${err.message}`),
    );
    return done.length;
  }

  /** Logs when announcing starts failing and when it recovers, not at every retry. */
  private noteOutcome(failed: number, failure: PromiseSettledResult<void> | undefined): void {
    if (failed > 0 && !this.failing) {
      const reason = failure?.status === 'rejected' ? String((failure.reason as Error).message) : '';
      this.logger.warn(`${failed} key invalidation(s) not announced, retrying every second: ${reason}`);
    } else if (failed === 0 && this.failing) {
      this.logger.log('key invalidations announced again');
    }
    this.failing = failed > 0;
  }
}
