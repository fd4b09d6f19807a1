import {
  type BeforeApplicationShutdown,
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
} from '@nestjs/common';
import { Kysely } from 'kysely';
import { type Database, ensureLogPartitions } from '#libs/db';
import { DB } from '../tokens.js';

const DAY_MS = 24 * 3600 * 1000;
/** This month and the two next: a worker down over a month end still finds its partition. */
const MONTHS_AHEAD = 2;

/**
 * Creates request_logs month partitions ahead of time, at boot and daily. Missing them is never
 * fatal (rows land in the default partition and move when the month's table is created), so a
 * failure is logged and the next run tries again.
 */
@Injectable()
export class LogPartitionMaintainer implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(LogPartitionMaintainer.name);
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;

  constructor(@Inject(DB) private readonly db: Kysely<Database>) {}

  onApplicationBootstrap(): void {
    this.running = this.run();
    this.timer = setInterval(() => {
      this.running ??= this.run();
    }, DAY_MS);
    this.timer.unref();
  }

  private async run(): Promise<void> {
    try {
      const created = await ensureLogPartitions(this.db, new Date(), MONTHS_AHEAD);
      if (created.length > 0) this.logger.log(`created request_logs partitions: ${created.join(', ')}`);
    } catch (err) {
      this.logger.warn(`request_logs partitions not ensured (will retry in 24h): ${(err as Error).message}`);
    } finally {
      this.running = null;
    }
  }

  async beforeApplicationShutdown(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.running;
  }
}
