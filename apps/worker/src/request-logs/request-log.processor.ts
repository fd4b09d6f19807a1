import {
  type BeforeApplicationShutdown,
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
} from '@nestjs/common';
import { type Job, UnrecoverableError, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { type GatewayConfig } from '#libs/config';
import { REQUEST_LOG_QUEUE, type RequestLogJob } from '#libs/queue';
import { type RedisKeys } from '#libs/redis';
import { BULL_REDIS, CONFIG, REDIS_KEYS } from '../tokens.js';
import { MicroBatcher } from './micro-batcher.js';
import { parseRequestLogJob } from './request-log.payload.js';
import { RequestLogWriter } from './request-log.writer.js';

/** Bounded retention: enough finished jobs to debug with, never an ever-growing Redis. */
export const KEEP_COMPLETED = { age: 3600, count: 10_000 } as const;
export const KEEP_FAILED = { age: 7 * 24 * 3600, count: 100_000 } as const;

/**
 * The one consumer of the request-log queue. BullMQ hands out single jobs; each is validated
 * and parked in a MicroBatcher, and its promise (so the job) settles only after the batch
 * transaction committed or failed. A failed batch fails its jobs, which BullMQ retries with the
 * producer's backoff; writes are idempotent by request id, so retries never double count.
 */
@Injectable()
export class RequestLogProcessor implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(RequestLogProcessor.name);
  private readonly batcher: MicroBatcher<RequestLogJob>;
  private worker: Worker | null = null;

  constructor(
    @Inject(CONFIG) private readonly config: GatewayConfig,
    @Inject(REDIS_KEYS) private readonly keys: RedisKeys,
    @Inject(BULL_REDIS) private readonly connection: Redis,
    writer: RequestLogWriter,
  ) {
    this.batcher = new MicroBatcher({
      maxSize: config.worker.batch_max,
      maxWaitMs: config.worker.batch_wait_ms,
      write: (jobs) => writer.writeBatch(jobs),
    });
  }

  get status(): { running: boolean; pending: number; batchesInFlight: number } {
    return {
      running: this.worker?.isRunning() ?? false,
      pending: this.batcher.pending,
      batchesInFlight: this.batcher.inFlight,
    };
  }

  onApplicationBootstrap(): void {
    const worker = new Worker(REQUEST_LOG_QUEUE, (job: Job) => this.process(job), {
      connection: this.connection,
      prefix: this.keys.bullPrefix,
      // Two batches' worth of slots: one batch can commit while the next one fills.
      concurrency: this.config.worker.batch_max * 2,
      removeOnComplete: KEEP_COMPLETED,
      removeOnFail: KEEP_FAILED,
    });
    worker.on('error', (err) => this.logger.error(`queue worker: ${err.message}`));
    worker.on('failed', (job, err) => {
      if (!job) return;
      const final = err instanceof UnrecoverableError || job.attemptsMade >= (job.opts.attempts ?? 1);
      this.logger.warn(
        `job ${job.id} attempt ${job.attemptsMade} failed${final ? ' for good' : ', will retry'}: ${err.message}`,
      );
    });
    this.worker = worker;
  }

  private async process(job: Job): Promise<void> {
    await this.batcher.add(parseRequestLogJob(job.data));
  }

  /** SIGTERM: stop taking jobs, write the batch in hand, wait for the jobs in flight to settle. */
  async beforeApplicationShutdown(): Promise<void> {
    const closing = this.worker?.close();
    await this.batcher.drain();
    await closing;
  }
}
