import { Inject, Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { type Env, type GatewayConfig } from '#libs/config';
import {
  logBatchJobId,
  MAX_LOGS_PER_JOB,
  REQUEST_LOG_BATCH_JOB,
  REQUEST_LOG_JOB_OPTIONS,
  REQUEST_LOG_QUEUE,
  type RequestLogBatch,
  type RequestLogJob,
} from '#libs/queue';
import { createRedis, type RedisKeys } from '#libs/redis';
import { CONFIG, ENV, REDIS_KEYS } from '../tokens.js';

/** Past this many unsent logs the edge is in trouble (Redis down for long); it says so loudly. */
const BUFFER_WARN_AT = 50_000;
const RETRY_DELAY_MS = 500;

/**
 * Buffers request logs and ships each flush as one BullMQ job (several past MAX_LOGS_PER_JOB), so
 * the hot path pays an array push, and BullMQ's fixed cost per job is paid per flush, not per
 * request. A failed flush keeps the logs and retries.
 */
@Injectable()
export class LogShipper implements OnApplicationShutdown {
  private readonly logger = new Logger(LogShipper.name);
  private readonly queue: Queue;
  private readonly connection: Redis;
  private buffer: RequestLogJob[] = [];
  private timer: NodeJS.Timeout | null = null;
  private flushing: Promise<void> | null = null;
  shipped = 0;

  constructor(
    @Inject(ENV) env: Env,
    @Inject(REDIS_KEYS) keys: RedisKeys,
    @Inject(CONFIG) private readonly config: GatewayConfig,
  ) {
    this.connection = createRedis(env.redisUrl, { forBullmq: true, name: 'edge-log-queue' });
    this.queue = new Queue(REQUEST_LOG_QUEUE, {
      connection: this.connection,
      prefix: keys.bullPrefix,
    });
    this.queue.on('error', (err) => this.logger.warn(`log queue: ${err.message}`));
  }

  enqueue(job: RequestLogJob): void {
    this.buffer.push(job);
    if (this.buffer.length >= this.config.edge.log_flush_max_batch) this.flushSoon(0);
    else this.flushSoon(this.config.edge.log_flush_interval_ms);
  }

  get pending(): number {
    return this.buffer.length;
  }

  private flushSoon(delayMs: number): void {
    if (this.flushing) return; // the running flush reschedules itself if more arrived
    if (this.timer && delayMs > 0) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.flush(), delayMs);
  }

  /** Sends everything buffered; resolves when it is in Redis (or failed and was put back). */
  async flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (this.flushing) return this.flushing;
    if (this.buffer.length === 0) return;
    const batch = this.buffer;
    this.buffer = [];
    this.flushing = this.send(batch)
      .then(
        () => {
          this.shipped += batch.length;
        },
        (err: Error) => {
          this.buffer = batch.concat(this.buffer);
          if (this.buffer.length >= BUFFER_WARN_AT)
            this.logger.error(`${this.buffer.length} request logs waiting for Redis`);
          this.logger.warn(`log flush failed, retrying: ${err.message}`);
          this.timer = setTimeout(() => void this.flush(), RETRY_DELAY_MS);
        },
      )
      .finally(() => {
        this.flushing = null;
        if (this.buffer.length > 0 && !this.timer) this.flushSoon(this.config.edge.log_flush_interval_ms);
      });
    return this.flushing;
  }

  /** One job per MAX_LOGS_PER_JOB logs; `add` for the usual single one, `addBulk` (one MULTI) past it. */
  private async send(logs: readonly RequestLogJob[]): Promise<void> {
    const jobs = [];
    for (let i = 0; i < logs.length; i += MAX_LOGS_PER_JOB) {
      const part = logs.slice(i, i + MAX_LOGS_PER_JOB);
      const data: RequestLogBatch = { v: 1, logs: part };
      jobs.push({
        name: REQUEST_LOG_BATCH_JOB,
        data,
        opts: { ...REQUEST_LOG_JOB_OPTIONS, jobId: logBatchJobId(part) },
      });
    }
    const [only] = jobs;
    if (jobs.length === 1 && only) await this.queue.add(only.name, only.data, only.opts);
    else await this.queue.addBulk(jobs);
  }

  async onApplicationShutdown(): Promise<void> {
    // Logs still buffered must reach Redis before the process goes.
    for (let i = 0; i < 20 && (this.buffer.length > 0 || this.flushing); i++) await this.flush();
    if (this.timer) clearTimeout(this.timer);
    await this.queue.close();
    // BullMQ leaves a connection it was handed open.
    this.connection.disconnect();
  }
}
