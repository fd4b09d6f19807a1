import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Logger, type LoggerService } from '@nestjs/common';
import { type Job, Queue, UnrecoverableError, type Worker } from 'bullmq';
import { parseConfig } from '#libs/gateway-config';
import { REQUEST_LOG_BATCH_JOB, REQUEST_LOG_QUEUE } from '#libs/queue';
import { createRedis, type RedisClient, redisKeys } from '#libs/redis';
import { requestLogJob } from '../../../../test/support/db.js';
import { dropRedisPrefix, TEST_REDIS_URL, uniqueRedisPrefix } from '../../../../test/support/redis.js';
import { RequestLogProcessor } from './request-log.processor.js';
import { type RequestLogWriter } from './request-log.writer.js';

const lines: string[] = [];
const recorder: LoggerService = {
  log: (m: string) => lines.push(`log ${m}`),
  warn: (m: string) => lines.push(`warn ${m}`),
  error: (m: string) => lines.push(`error ${m}`),
};

const prefix = uniqueRedisPrefix('processor-log');
let connection: RedisClient;
let processor: RequestLogProcessor;
let worker: Worker;

const config = parseConfig({
  providers: [{ id: 'p', type: 'openai', base_url: 'http://127.0.0.1:1/v1', models: ['m'] }],
  models: [{ id: 'm', owned_by: 'o', created: 1, pricing: { input_per_million: 1, output_per_million: 1 } }],
  groups: { default: ['m'] },
});

beforeAll(() => {
  Logger.overrideLogger(recorder);
  connection = createRedis(TEST_REDIS_URL, { forBullmq: true });
  // No job reaches the writer here: the queue under this prefix stays empty.
  processor = new RequestLogProcessor(config, redisKeys(prefix), connection, {} as RequestLogWriter);
  processor.onApplicationBootstrap();
  // The BullMQ worker whose events the processor logs (private: only its events are used).
  worker = (processor as unknown as { worker: Worker }).worker;
});

afterAll(async () => {
  await processor.beforeApplicationShutdown();
  connection.disconnect();
  await dropRedisPrefix(prefix);
  Logger.overrideLogger(false);
});

const job = (id: string, attemptsMade: number): Job =>
  ({ id, attemptsMade, opts: { attempts: 10_000 } }) as unknown as Job;

describe('RequestLogProcessor logs', () => {
  it('one line when a run of failed job attempts starts and one when it ends, with the count', () => {
    lines.length = 0;
    // A Postgres outage: every attempt of every job fails, retried with backoff, until it is back.
    const down = new Error('connect ECONNREFUSED 127.0.0.1:5432');
    for (let attempt = 1; attempt <= 593; attempt++)
      for (let j = 0; j < 8; j++) worker.emit('failed', job(`logs_${j}`, attempt), down, 'active');
    worker.emit('completed', job('logs_0', 594), undefined, 'active');
    worker.emit('completed', job('logs_1', 594), undefined, 'active');
    // Was one warning per attempt: 4,744 lines.
    expect(lines).toEqual([
      'warn writing request-log jobs failed (connect ECONNREFUSED 127.0.0.1:5432); logged again once it works',
      expect.stringMatching(/^log writing request-log jobs works again after 4744 failures in \d+ ms$/),
    ]);
  });

  it('still tells each job that fails for good, with its id', () => {
    lines.length = 0;
    worker.emit('failed', job('logs_bad', 1), new UnrecoverableError('log 3 is invalid'), 'active');
    worker.emit('failed', job('logs_last', 10_000), new Error('deadlock detected'), 'active');
    expect(lines).toEqual([
      'warn job logs_bad attempt 1 failed for good: log 3 is invalid',
      'warn job logs_last attempt 10000 failed for good: deadlock detected',
    ]);
  });
});

describe('a job whose lock was gone when it finished', () => {
  const lockPrefix = uniqueRedisPrefix('processor-lock');
  const bullPrefix = redisKeys(lockPrefix).bullPrefix;
  let lockConnection: RedisClient;
  let queueConnection: RedisClient;
  let lockProcessor: RequestLogProcessor | undefined;
  let queue: Queue | undefined;

  beforeAll(() => {
    lockConnection = createRedis(TEST_REDIS_URL, { forBullmq: true });
    queueConnection = createRedis(TEST_REDIS_URL, { forBullmq: true });
  });

  afterAll(async () => {
    await lockProcessor?.beforeApplicationShutdown();
    await queue?.close();
    lockConnection.disconnect();
    queueConnection.disconnect();
    await dropRedisPrefix(lockPrefix);
  });

  it('is a warning saying what happened (redelivered, idempotent), not an error', async () => {
    // The writer holds the job's batch until the lock is gone: what the stalled check does to the
    // jobs of a worker whose lock lapsed (BullMQ's own error, from its own scripts, follows).
    let writing!: () => void;
    const started = new Promise<void>((resolve) => (writing = resolve));
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const writer = {
      writeBatch: async (logs: readonly unknown[]) => {
        writing();
        await released;
        return logs.map(() => null);
      },
    } as unknown as RequestLogWriter;
    lockProcessor = new RequestLogProcessor(config, redisKeys(lockPrefix), lockConnection, writer);
    lockProcessor.onApplicationBootstrap();
    queue = new Queue(REQUEST_LOG_QUEUE, { connection: queueConnection, prefix: bullPrefix });
    await queue.add(REQUEST_LOG_BATCH_JOB, { v: 1, logs: [requestLogJob()] }, { jobId: 'logs_lost_lock' });

    await started;
    lines.length = 0;
    expect(await queueConnection.del(`${bullPrefix}:${REQUEST_LOG_QUEUE}:logs_lost_lock:lock`)).toBe(1);
    release();
    for (let waited = 0; !lines.some((l) => l.includes('logs_lost_lock')) && waited < 5_000; waited += 20)
      await new Promise((resolve) => setTimeout(resolve, 20));

    await new Promise((resolve) => setTimeout(resolve, 300)); // BullMQ's second report of it

    expect(lines.filter((l) => l.startsWith('error '))).toEqual([]);
    expect(lines.filter((l) => l.includes('logs_lost_lock'))).toHaveLength(1);
    expect(lines).toContainEqual(
      expect.stringMatching(
        /^warn job logs_lost_lock: its lock was gone .*delivered again.*by request id.*\(Missing lock for job logs_lost_lock\. moveToFinished\)$/,
      ),
    );
  });
});
