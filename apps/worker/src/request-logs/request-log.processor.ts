import {
  type BeforeApplicationShutdown,
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
} from '@nestjs/common';
import { type Job, UnrecoverableError, Worker } from 'bullmq';
import { type GatewayConfig } from '#libs/config';
import { type StorableLog } from '#libs/db';
import { REQUEST_LOG_BACKOFF, REQUEST_LOG_QUEUE, requestLogRetryDelayMs } from '#libs/queue';
import { FailureRun, type RedisClient, type RedisKeys, settlesWhileReady } from '#libs/redis';
import { BULL_REDIS, CONFIG, REDIS_KEYS } from '../tokens.js';
import { traceBatchWrite, traceJob } from '../telemetry/request-log-tracing.js';
import { jobOutcome, type LogFailure } from './job-outcome.js';
import { MicroBatcher } from './micro-batcher.js';
import { queueWorkerErrorLine } from './queue-worker-errors.js';
import { logsOfJob, parseRequestLogJob } from './request-log.payload.js';
import { RequestLogWriter } from './request-log.writer.js';

/** Bounded retention: enough finished jobs to debug with, never an ever-growing Redis. */
export const KEEP_COMPLETED = { age: 3600, count: 1000 } as const;
export const KEEP_FAILED = { age: 7 * 24 * 3600, count: 100_000 } as const;

/**
 * Jobs processed at once. A job is an edge's flush (up to MAX_LOGS_PER_JOB logs), so this bounds
 * the logs held in memory (8,000) rather than being the batch size: logs of jobs running together
 * share the MicroBatcher's batches, and a job of 1,000 logs alone fills batches by size. Small jobs
 * (an idle edge's flush) would leave batches waiting for their timer, so when every slot is taken,
 * and so no more logs can come, what waits is written at once.
 */
export const JOB_CONCURRENCY = 8;

/**
 * A worker killed mid-job (OOM, node loss) holds its jobs until their lock expires and a stalled
 * check hands them back. BullMQ's defaults (30 s lock, a check every 30 s) made that about a minute
 * in the kill -9 fault test; these make it about 20 s. The lock is renewed every half lock while a
 * job runs, so only an event loop blocked for 7 s would let a live job be taken for stalled (and
 * it would then only be written twice, which the writes ignore by request id).
 */
export const STALLED_JOB_RECOVERY = { lockDuration: 15_000, stalledInterval: 5_000 } as const;

/** How long the acks may take at shutdown with Redis connected (one that accepts and never answers). */
const ACK_WAIT_MS = 5_000;

/**
 * The one consumer of the request-log queue. Each job carries a batch of logs (one edge flush);
 * each log is validated alone and parked in a MicroBatcher, and the job settles only after every
 * one of its logs' transactions committed or failed. A failed write fails the job, which BullMQ
 * retries whole with the producer's backoff; writes are idempotent by request id, so the logs that
 * already landed are skipped and nothing is counted twice. Logs that can never land (invalid, or
 * rejected by Postgres for their data) fail the job for good once the others are written.
 */
@Injectable()
export class RequestLogProcessor implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(RequestLogProcessor.name);
  /** Job attempts that fail and are retried: all of them while Postgres is down. */
  private readonly attempts = new FailureRun(this.logger, 'writing request-log jobs');
  private readonly batcher: MicroBatcher<StorableLog>;
  private worker: Worker | null = null;
  private activeJobs = 0;
  /** The job of the last lost-lock warning: BullMQ reports one lost lock twice in a row. */
  private lastLostLock: string | null = null;

  constructor(
    @Inject(CONFIG) private readonly config: GatewayConfig,
    @Inject(REDIS_KEYS) private readonly keys: RedisKeys,
    @Inject(BULL_REDIS) private readonly connection: RedisClient,
    writer: RequestLogWriter,
  ) {
    this.batcher = new MicroBatcher({
      maxSize: config.worker.batch_max,
      maxWaitMs: config.worker.batch_wait_ms,
      write: (jobs) => traceBatchWrite(jobs, () => writer.writeBatch(jobs)),
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
      concurrency: JOB_CONCURRENCY,
      removeOnComplete: KEEP_COMPLETED,
      removeOnFail: KEEP_FAILED,
      ...STALLED_JOB_RECOVERY,
      // Jobs produced before the capped backoff existed name BullMQ's own `exponential`.
      settings: {
        backoffStrategy: (attemptsMade, type) =>
          type === REQUEST_LOG_BACKOFF ? requestLogRetryDelayMs(attemptsMade) : 1000,
      },
    });
    // Connection errors, one per reconnect attempt, are logged once per outage by #libs/redis; a
    // lost lock is a warning saying what it means (queue-worker-errors.ts), once per job in a row
    // (BullMQ reports it twice: finishing the job, then failing it).
    worker.on('error', (err) => {
      const line = queueWorkerErrorLine(err);
      if (line === null) return;
      if (line.level === 'error') return this.logger.error(line.message);
      if (line.jobId === this.lastLostLock) return;
      this.lastLostLock = line.jobId;
      this.logger.warn(line.message);
    });
    // A job failing for good is told alone: its logs will never land. Retried attempts are told
    // once a run: during a 30 s Postgres outage one line each was 4,740 lines.
    worker.on('failed', (job, err) => {
      if (!job) return;
      const final = err instanceof UnrecoverableError || job.attemptsMade >= (job.opts.attempts ?? 1);
      if (final)
        this.logger.warn(`job ${job.id} attempt ${job.attemptsMade} failed for good: ${err.message}`);
      else this.attempts.failed(err);
    });
    worker.on('completed', () => this.attempts.succeeded());
    this.worker = worker;
  }

  private async process(job: Job): Promise<void> {
    const logs = logsOfJob(job.name, job.data);
    return traceJob(job, logs, () => this.processLogs(logs));
  }

  private async processLogs(logs: readonly unknown[]): Promise<void> {
    this.activeJobs++;
    try {
      const invalid: LogFailure[] = [];
      const writes: Array<{ index: number; written: Promise<void> }> = [];
      logs.forEach((data, index) => {
        try {
          writes.push({ index, written: this.batcher.add(parseRequestLogJob(data)) });
        } catch (err) {
          invalid.push({ index, error: err as Error });
        }
      });
      if (this.activeJobs >= JOB_CONCURRENCY) this.batcher.flush();
      const results = await Promise.allSettled(writes.map((w) => w.written));
      const failed: LogFailure[] = [];
      results.forEach((r, i) => {
        if (r.status === 'rejected') failed.push({ index: writes[i]!.index, error: r.reason as Error });
      });
      const outcome = jobOutcome(logs.length, invalid, failed);
      if (outcome) throw outcome;
    } finally {
      this.activeJobs--;
    }
  }

  /**
   * SIGTERM: stop taking jobs, write the logs in hand (each batch commits or rolls back), then
   * acknowledge their jobs. Acks go to Redis: while it is unreachable they would wait for it for
   * good (and the stop overran its budget and exited 1), so they are left undone. Nothing is lost:
   * an unacknowledged job stays in Redis and is delivered again once its lock expires, and its
   * logs, already written, are skipped by request id.
   */
  async beforeApplicationShutdown(): Promise<void> {
    const worker = this.worker;
    await worker?.pause(true);
    await this.batcher.drain();
    if (!worker) return;
    const reachable = this.connection.status === 'ready';
    if (reachable && (await settlesWhileReady(this.connection, worker.close(), ACK_WAIT_MS))) return;
    this.logger.warn(
      'Redis unreachable at shutdown: the jobs in hand stay unacknowledged and are delivered again (their logs are written)',
    );
    // Drops BullMQ's own blocking connection at once (ours closes with the app's clients).
    if (!reachable) await worker.close(true);
  }
}
