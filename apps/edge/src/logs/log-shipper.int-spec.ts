import { createServer, connect, type Server, type Socket } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { Logger } from '@nestjs/common';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { parseConfig, readEnv } from '#libs/config';
import {
  logBatchJobId,
  MAX_LOGS_PER_JOB,
  REQUEST_LOG_BATCH_JOB,
  REQUEST_LOG_QUEUE,
  type RequestLogJob,
} from '#libs/queue';
import { createRedis, redisKeys } from '#libs/redis';
import { requestLogJob } from '../../../../test/support/db.js';
import { dropRedisPrefix, TEST_REDIS_URL, uniqueRedisPrefix } from '../../../../test/support/redis.js';
import { LogShipper } from './log-shipper.service.js';

// Flushes happen only when a test calls flush(): no size or time trigger within a test.
const config = parseConfig({
  edge: { log_flush_interval_ms: 60_000, log_flush_max_batch: 1_000_000 },
  providers: [{ id: 'p', type: 'openai', base_url: 'http://127.0.0.1:1/v1', models: ['m'] }],
  models: [{ id: 'm', owned_by: 'o', created: 1, pricing: { input_per_million: 1, output_per_million: 1 } }],
  groups: { default: ['m'] },
});

/** A TCP relay to the test Redis that can drop every connection and refuse new ones at will. */
class Relay {
  private readonly sockets = new Set<Socket>();
  private accepting = true;
  private readonly server: Server = createServer((client) => {
    if (!this.accepting) return void client.destroy();
    const target = new URL(TEST_REDIS_URL);
    const upstream = connect(Number(target.port || 6379), target.hostname);
    for (const [a, b] of [
      [client, upstream],
      [upstream, client],
    ] as const) {
      this.sockets.add(a);
      a.on('error', () => b.destroy());
      a.on('close', () => (this.sockets.delete(a), b.destroy()));
      a.pipe(b);
    }
  });

  async start(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    const address = this.server.address();
    if (!address || typeof address === 'string') throw new Error('relay has no port');
    const url = new URL(TEST_REDIS_URL);
    url.hostname = '127.0.0.1';
    url.port = String(address.port);
    return url.toString();
  }

  /** Redis becomes unreachable: open connections drop, new ones are closed at once. */
  cut(): void {
    this.accepting = false;
    for (const s of this.sockets) s.destroy();
  }

  restore(): void {
    this.accepting = true;
  }

  async stop(): Promise<void> {
    this.cut();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

const prefixes: string[] = [];
const shippers: LogShipper[] = [];
const queues: Queue[] = [];
let reader: Redis;

/** A LogShipper on its own key prefix, and a queue handle to read what it sent. */
function setup(redisUrl = TEST_REDIS_URL): { shipper: LogShipper; queue: Queue; prefix: string } {
  const prefix = uniqueRedisPrefix('shipper');
  prefixes.push(prefix);
  const keys = redisKeys(prefix);
  const env = readEnv({ REDIS_URL: redisUrl, REDIS_PREFIX: prefix });
  const shipper = new LogShipper(env, keys, config);
  shippers.push(shipper);
  const queue = new Queue(REQUEST_LOG_QUEUE, { connection: reader, prefix: keys.bullPrefix });
  queues.push(queue);
  return { shipper, queue, prefix };
}

/**
 * Every job in the queue (none is processed here), in the order of `sent`, the logs given to the
 * shipper: each job must be a slice of them.
 */
async function queued(
  queue: Queue,
  sent: readonly RequestLogJob[],
): Promise<Array<{ id: string; name: string; logs: RequestLogJob[] }>> {
  const position = new Map(sent.map((log, i) => [log.requestId, i]));
  const jobs = (await queue.getWaiting(0, -1)).map((j) => ({
    id: j.id!,
    name: j.name,
    logs: (j.data as { logs: RequestLogJob[] }).logs,
  }));
  const first = (job: (typeof jobs)[number]) => position.get(job.logs[0]?.requestId ?? '') ?? -1;
  return jobs.sort((a, b) => first(a) - first(b));
}

async function waitFor(what: string, probe: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!probe()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

beforeAll(() => {
  reader = createRedis(TEST_REDIS_URL, { forBullmq: true });
  // The shipper warns on every failed flush; the tests cause those on purpose.
  Logger.overrideLogger(['error']);
});

afterEach(async () => {
  for (const s of shippers.splice(0)) await s.onApplicationShutdown();
  for (const q of queues.splice(0)) await q.close();
});

afterAll(async () => {
  reader.disconnect();
  for (const p of prefixes) await dropRedisPrefix(p);
});

describe('LogShipper', () => {
  it.each([1, MAX_LOGS_PER_JOB, 2 * MAX_LOGS_PER_JOB + 500])(
    'ships %i logs in one flush as jobs of at most MAX_LOGS_PER_JOB logs',
    async (n) => {
      const { shipper, queue } = setup();
      const logs = Array.from({ length: n }, () => requestLogJob());
      for (const log of logs) shipper.enqueue(log);
      expect(shipper.pending).toBe(n);
      await shipper.flush();

      const jobs = await queued(queue, logs);
      expect(jobs).toHaveLength(Math.ceil(n / MAX_LOGS_PER_JOB));
      expect(jobs.flatMap((j) => j.logs)).toEqual(logs);
      for (const job of jobs) {
        expect(job.name).toBe(REQUEST_LOG_BATCH_JOB);
        expect(job.logs.length).toBeLessThanOrEqual(MAX_LOGS_PER_JOB);
        expect(job.id).toBe(logBatchJobId(job.logs));
      }
      expect(shipper.shipped).toBe(n);
      expect(shipper.pending).toBe(0);
    },
  );

  it('keeps the logs while Redis is unreachable and ships them once it is back', async () => {
    const relay = new Relay();
    const { shipper, queue } = setup(await relay.start());
    try {
      const before = [requestLogJob(), requestLogJob()];
      for (const log of before) shipper.enqueue(log);
      await shipper.flush();
      expect(shipper.shipped).toBe(2);

      relay.cut();
      const during = [requestLogJob(), requestLogJob(), requestLogJob()];
      for (const log of during) shipper.enqueue(log);
      let flushed = false;
      const flushing = shipper.flush().then(() => (flushed = true));
      // The add waits on the connection (BullMQ's has no retry limit) rather than failing.
      await new Promise((r) => setTimeout(r, 300));
      expect(flushed).toBe(false);
      expect(shipper.shipped).toBe(2);
      const later = requestLogJob();
      shipper.enqueue(later);
      expect(shipper.pending).toBe(1);

      relay.restore();
      await flushing;
      await shipper.flush();
      expect(shipper.shipped).toBe(6);
      expect(shipper.pending).toBe(0);
      const sent = [...before, ...during, later];
      const jobs = await queued(queue, sent);
      expect(jobs.flatMap((j) => j.logs)).toEqual(sent);
    } finally {
      await relay.stop();
    }
  });

  it('keeps the logs of a flush Redis refuses and retries them', async () => {
    const { shipper, queue, prefix } = setup();
    // The job id counter holding a non-number: BullMQ's add script fails before writing anything.
    const idKey = `${redisKeys(prefix).bullPrefix}:${REQUEST_LOG_QUEUE}:id`;
    await reader.set(idKey, 'not a number');
    const logs = [requestLogJob(), requestLogJob()];
    for (const log of logs) shipper.enqueue(log);
    await shipper.flush();
    expect(shipper.shipped).toBe(0);
    expect(shipper.pending).toBe(2);
    expect(await queued(queue, logs)).toEqual([]);

    await reader.del(idKey);
    await waitFor('the retry', () => shipper.shipped === 2);
    const jobs = await queued(queue, logs);
    expect(jobs).toEqual([{ id: logBatchJobId(logs), name: REQUEST_LOG_BATCH_JOB, logs }]);
  });
});
