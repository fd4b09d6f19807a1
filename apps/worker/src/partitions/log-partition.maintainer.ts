import {
  type BeforeApplicationShutdown,
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
} from '@nestjs/common';
import { Kysely } from 'kysely';
import { type GatewayConfig } from '#libs/config';
import { type Database, dropLogPartitionsBefore, ensureLogPartitions } from '#libs/db';
import { CONFIG, DB } from '../tokens.js';

const DAY_MS = 24 * 3600 * 1000;
/** This month and the two next: a worker down over a month end still finds its partition. */
const MONTHS_AHEAD = 2;

/** The retention cutoff: partitions ending at or before it are dropped; null keeps everything. */
export function retentionCutoff(now: Date, retentionDays: number): Date | null {
  return retentionDays > 0 ? new Date(now.getTime() - retentionDays * DAY_MS) : null;
}

/**
 * Keeps request_logs bounded, at boot and daily: creates month partitions ahead of time, and drops
 * those that ended more than `worker.log_retention_days` ago (whole months, so a row is kept at
 * least that long and at most one month more). Missing partitions are never fatal (rows land in the
 * default partition and move when the month's table is created), so a failure is logged and the
 * next run tries again. Every replica runs it; an advisory lock in libs/db serializes them.
 */
@Injectable()
export class LogPartitionMaintainer implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(LogPartitionMaintainer.name);
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<unknown> | null = null;

  constructor(
    @Inject(DB) private readonly db: Kysely<Database>,
    @Inject(CONFIG) private readonly config: GatewayConfig,
  ) {}

  onApplicationBootstrap(): void {
    this.running = this.run();
    this.timer = setInterval(() => {
      this.running ??= this.run();
    }, DAY_MS);
    this.timer.unref();
  }

  /** One maintenance pass; returns the partitions it created and dropped. */
  async maintain(now = new Date()): Promise<{ created: string[]; dropped: string[] }> {
    const created = await ensureLogPartitions(this.db, now, MONTHS_AHEAD);
    const cutoff = retentionCutoff(now, this.config.worker.log_retention_days);
    const dropped = cutoff ? await dropLogPartitionsBefore(this.db, cutoff) : [];
    return { created, dropped };
  }

  private async run(): Promise<void> {
    try {
      const { created, dropped } = await this.maintain();
      if (created.length > 0) this.logger.log(`created request_logs partitions: ${created.join(', ')}`);
      if (dropped.length > 0)
        this.logger.log(
          `dropped request_logs partitions past ${this.config.worker.log_retention_days} days: ${dropped.join(', ')}`,
        );
    } catch (err) {
      this.logger.warn(
        `request_logs partitions not maintained (will retry in 24h): ${(err as Error).message}`,
      );
    } finally {
      this.running = null;
    }
  }

  async beforeApplicationShutdown(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.running;
  }
}
