import { Inject, Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import { duplicateRedis, type RedisClient, type RedisKeys } from '#libs/redis';
import { readSamples } from '#libs/routing-stores';
import { REDIS, REDIS_KEYS } from '../tokens.js';
import { HealthTracker } from '../probe/health-tracker.service.js';
import { PassiveHealth } from './passive-health.service.js';

/** A blocking read returns at least this often, so stop() never waits long. */
const BLOCK_MS = 1_000;
const RETRY_AFTER_ERROR_MS = 500;

/**
 * Leader only: reads the edges' sample stream on a connection of its own (a blocking XREAD holds
 * it) and folds every batch into PassiveHealth, and the refused credentials among them into the
 * HealthTracker. Starts at '$': samples written while no leader was reading are skipped, as stale.
 */
@Injectable()
export class SamplesConsumer implements OnModuleDestroy {
  private readonly logger = new Logger(SamplesConsumer.name);
  private conn: RedisClient | null = null;
  private loop: Promise<void> | null = null;

  constructor(
    @Inject(REDIS) private readonly redis: RedisClient,
    @Inject(REDIS_KEYS) private readonly keys: RedisKeys,
    private readonly passive: PassiveHealth,
    private readonly health: HealthTracker,
  ) {}

  /** `onBatch` runs after each batch that carried samples. */
  start(onBatch: () => void): void {
    if (this.conn) return;
    const conn = duplicateRedis(this.redis, `${this.keys.prefix}:router-samples`.replace(/[^\w:.-]/g, '_'), {
      enableAutoPipelining: false,
      // A read queued while Redis is down is never settled by disconnect() (the reconnect it waits
      // for is cancelled), so stop() would wait on it forever: this bounds it, queued or sent.
      blockingTimeout: 2 * BLOCK_MS,
    });
    // Its connection errors are logged once per outage by duplicateRedis.
    this.conn = conn;
    this.loop = this.run(conn, onBatch);
  }

  async stop(): Promise<void> {
    const conn = this.conn;
    this.conn = null;
    if (!conn) return;
    conn.disconnect(); // rejects the pending blocking read, which ends the loop
    await this.loop;
    this.loop = null;
  }

  async onModuleDestroy(): Promise<void> {
    await this.stop();
  }

  private async run(conn: RedisClient, onBatch: () => void): Promise<void> {
    let lastId = '$';
    while (this.conn === conn) {
      try {
        const batch = await readSamples(conn, this.keys, lastId, BLOCK_MS);
        lastId = batch.lastId;
        if (this.conn !== conn) return;
        const now = Date.now();
        // Before the batch's evaluation: a refused credential takes its provider down in it.
        const refused = this.health.refusals(batch.samples, now);
        if (this.passive.record(batch.samples, now) > 0 || refused) onBatch();
      } catch (err) {
        if (this.conn !== conn) return;
        this.logger.warn(`reading samples failed (retrying): ${(err as Error).message}`);
        await new Promise((r) => setTimeout(r, RETRY_AFTER_ERROR_MS));
      }
    }
  }
}
