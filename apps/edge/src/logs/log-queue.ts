import { once } from 'node:events';
import { type JobsOptions, Queue } from 'bullmq';
import {
  logBatchJobId,
  MAX_LOGS_PER_JOB,
  REQUEST_LOG_BATCH_JOB,
  REQUEST_LOG_JOB_OPTIONS,
  REQUEST_LOG_QUEUE,
  type RequestLogBatch,
  type RequestLogJob,
} from '#libs/queue';
import { type RedisTarget } from '#libs/config';
import { createRedis, type RedisClient } from '#libs/redis';

/** At shutdown, closing the queue may not wait longer than this (its connection may never have come up). */
const CLOSE_TIMEOUT_MS = 1_000;

/** Rejects if `promise` has not settled within `ms`. */
export function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no answer within ${ms} ms`)), ms);
  });
  // A send that loses the race may still land later: its logs are then sent twice, which the
  // worker ignores (it writes by request id).
  promise.catch(() => undefined);
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

interface LogJob {
  readonly name: string;
  readonly data: RequestLogBatch;
  readonly opts: JobsOptions;
}

/** One job per MAX_LOGS_PER_JOB logs, each with its deterministic id. */
export function logJobs(logs: readonly RequestLogJob[]): LogJob[] {
  const jobs: LogJob[] = [];
  for (let i = 0; i < logs.length; i += MAX_LOGS_PER_JOB) {
    const part = logs.slice(i, i + MAX_LOGS_PER_JOB);
    jobs.push({
      name: REQUEST_LOG_BATCH_JOB,
      data: { v: 1, logs: part },
      opts: { ...REQUEST_LOG_JOB_OPTIONS, jobId: logBatchJobId(part) },
    });
  }
  return jobs;
}

/**
 * The producer side of the request-log queue, never waiting on an unreachable Redis: its
 * connection has no offline queue (a command while disconnected fails at once) and a command
 * timeout, and every send is bounded by `timeoutMs` as a whole.
 */
export class LogQueue {
  private readonly connection: RedisClient;
  private readonly queue: Queue;
  /** The connection failed or closed since it was last ready: Redis is known to be unreachable. */
  private lost = false;
  /** Aborted at shutdown while Redis is known down: no send waits for the connection any more. */
  private readonly waits = new AbortController();

  constructor(
    redis: RedisTarget | string,
    bullPrefix: string,
    private readonly timeoutMs: number,
  ) {
    // Its connection errors are logged once per outage by createRedis, the shipper's state too.
    this.connection = createRedis(redis, { name: 'edge-log-queue', failFastMs: timeoutMs });
    this.queue = new Queue(REQUEST_LOG_QUEUE, { connection: this.connection, prefix: bullPrefix });
    this.queue.on('error', () => undefined);
    this.connection.on('error', () => (this.lost = true));
    this.connection.on('close', () => (this.lost = true));
    this.connection.on('ready', () => (this.lost = false));
  }

  /**
   * Redis is known to be unreachable: the connection failed and is not back. A first connect still
   * in progress is not (a fresh edge's Redis is usually about to answer).
   */
  get down(): boolean {
    return this.lost && this.connection.status !== 'ready';
  }

  /**
   * Sends fail at once from now on unless the connection is ready, the ones waiting for it too.
   * At shutdown with Redis known down, where waiting for a reconnect would only delay the spool.
   */
  stopWaiting(): void {
    this.waits.abort(new Error('Redis unreachable at shutdown'));
  }

  /** Resolves once every log is in Redis; `add` for the usual single job, `addBulk` (one MULTI) past it. */
  send(logs: readonly RequestLogJob[]): Promise<void> {
    const jobs = logJobs(logs);
    const [only] = jobs;
    const sent = this.connected().then((): Promise<unknown> =>
      jobs.length === 1 && only ? this.queue.add(only.name, only.data, only.opts) : this.queue.addBulk(jobs),
    );
    return within(sent, this.timeoutMs, 'log flush').then(() => undefined);
  }

  async close(): Promise<void> {
    // A connection that is not up has nothing to finish: BullMQ's close would wait for it.
    if (this.connection.status !== 'ready') this.connection.disconnect();
    await within(this.queue.close(), CLOSE_TIMEOUT_MS, 'log queue close').catch(() => undefined);
    // BullMQ leaves a connection it was handed open.
    this.connection.disconnect();
  }

  /**
   * Resolves when the connection is up: at once, or when a connect in progress completes. Rejects
   * on its first connection error, so a send while Redis refuses connections fails at once.
   */
  private async connected(): Promise<void> {
    const { status } = this.connection;
    if (status === 'ready') return;
    if (status === 'end' || status === 'close') throw new Error(`Redis connection is ${status}`);
    this.waits.signal.throwIfAborted();
    const signal = AbortSignal.any([AbortSignal.timeout(this.timeoutMs), this.waits.signal]);
    await once(this.connection, 'ready', { signal });
  }
}
