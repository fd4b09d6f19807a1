import {
  type BeforeApplicationShutdown,
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
} from '@nestjs/common';
import { Kysely } from 'kysely';
import { type GatewayConfig } from '#libs/config';
import {
  type Database,
  dropLogPartitionsBefore,
  ensureLogPartitions,
  oldestChargeDay,
  retireChargesOfDay,
} from '#libs/db';
import { CONFIG, DB } from '../tokens.js';

const DAY_MS = 24 * 3600 * 1000;
/** This month and the two next: a worker down over a month end still finds its partition. */
const MONTHS_AHEAD = 2;

/** The retention cutoff: partitions ending at or before it are dropped; null keeps everything. */
export function retentionCutoff(now: Date, retentionDays: number): Date | null {
  return retentionDays > 0 ? new Date(now.getTime() - retentionDays * DAY_MS) : null;
}

/**
 * Charges are kept at least this long whatever the log retention: longer than any redelivery of
 * a log (a job retries for at most ~28 h, a failed one is kept 7 days; docs/operations.md), than
 * a pending charge lives (24 h) and than any budget window but lifetime (31 days).
 */
export const CHARGE_RETENTION_MIN_DAYS = 62;

/**
 * The first UTC day whose charges are kept: charges of the days before it are retired into
 * daily totals. As long as the logs (`worker.log_retention_days`), at least
 * CHARGE_RETENTION_MIN_DAYS; null (0 days) keeps every charge.
 */
export function chargeRetentionCutoff(now: Date, logRetentionDays: number): Date | null {
  if (logRetentionDays <= 0) return null;
  const days = Math.max(logRetentionDays, CHARGE_RETENTION_MIN_DAYS);
  return new Date(Math.floor((now.getTime() - days * DAY_MS) / DAY_MS) * DAY_MS);
}

/**
 * Keeps request_logs and charges bounded, at boot and daily: creates month partitions ahead of time, and drops
 * those that ended more than `worker.log_retention_days` ago (whole months, so a row is kept at
 * least that long and at most one month more), and retires charges older than
 * chargeRetentionCutoff into daily totals, one day per transaction. Missing partitions are never fatal (rows land in the
 * default partition and move when the month's table is created), so a failure is logged and the
 * next run tries again. Every replica runs it; an advisory lock in libs/db serializes them.
 */
@Injectable()
export class LogPartitionMaintainer implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(LogPartitionMaintainer.name);
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<unknown> | null = null;
  private stopping = false;

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

  /** One maintenance pass; returns the partitions it created and dropped, the charges it retired. */
  async maintain(
    now = new Date(),
  ): Promise<{ created: string[]; dropped: string[]; chargesRetired: number }> {
    const created = await ensureLogPartitions(this.db, now, MONTHS_AHEAD);
    const cutoff = retentionCutoff(now, this.config.worker.log_retention_days);
    const dropped = cutoff ? await dropLogPartitionsBefore(this.db, cutoff) : [];
    const chargesCutoff = chargeRetentionCutoff(now, this.config.worker.log_retention_days);
    const chargesRetired = chargesCutoff ? await this.retireCharges(chargesCutoff) : 0;
    return { created, dropped, chargesRetired };
  }

  /** Oldest day first, one transaction each, until the cutoff or shutdown. */
  private async retireCharges(cutoff: Date): Promise<number> {
    let retired = 0;
    for (let day = await oldestChargeDay(this.db); day && day < cutoff && !this.stopping;) {
      retired += await retireChargesOfDay(this.db, day);
      day = await oldestChargeDay(this.db);
    }
    return retired;
  }

  private async run(): Promise<void> {
    try {
      const { created, dropped, chargesRetired } = await this.maintain();
      if (created.length > 0) this.logger.log(`created request_logs partitions: ${created.join(', ')}`);
      if (dropped.length > 0)
        this.logger.log(
          `dropped request_logs partitions past ${this.config.worker.log_retention_days} days: ${dropped.join(', ')}`,
        );
      if (chargesRetired > 0) this.logger.log(`retired ${chargesRetired} charges into charge_daily_totals`);
    } catch (err) {
      this.logger.warn(
        `request_logs partitions or charges retention not maintained (will retry in 24h): ${(err as Error).message}`,
      );
    } finally {
      this.running = null;
    }
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.stopping = true;
    if (this.timer) clearInterval(this.timer);
    await this.running;
  }
}
