import { afterEach, describe, expect, it } from '@jest/globals';
import { Queue } from 'bullmq';
import OpenAI from 'openai';
import { REQUEST_LOG_QUEUE } from '#libs/queue';
import { createRedis, redisKeys } from '#libs/redis';
import { type AppProcess, spawnApp } from '../support/app-process.js';
import { createTestDatabase, type TestDatabase } from '../support/db.js';
import { type PrivateRedis, startPrivateRedis } from '../support/private-servers.js';
import { type FaultStack, recordFigures, startFaultStack, storedCounts, waitUntil } from './fault-stack.js';

/**
 * SIGTERM to the worker, the router and the console while Redis is down (issue 11 item 8). The
 * worker holds a batch when Redis stops: it writes it, leaves its jobs un-acknowledged (Redis
 * cannot take the acks) and exits 0 within its budget; when Redis is back the jobs are delivered
 * again and their rows are not doubled. Before, the worker's stop waited on BullMQ's close (the
 * acks and a QUIT) until its 30 s budget ran out, and it exited 1.
 */
const REQUESTS = 3;

let redis: PrivateRedis | undefined;
let stack: FaultStack | undefined;
let t: TestDatabase | undefined;
let consoleApp: AppProcess | undefined;
let nextWorker: AppProcess | undefined;

afterEach(async () => {
  await consoleApp?.stop();
  await nextWorker?.stop();
  await stack?.close();
  await redis?.destroy();
  await t?.drop();
  stack = redis = t = consoleApp = nextWorker = undefined;
}, 60_000);

/** How many request_logs rows each request has, in the order of `ids`. */
async function rowsPerRequest(db: FaultStack['db'], ids: readonly string[]): Promise<number[]> {
  const { logs } = await storedCounts(db, ids);
  return ids.map((id) => logs.get(id) ?? 0);
}

interface WorkerHealth {
  queue: { pending: number };
}

describe('worker, router and console SIGTERM with Redis down', () => {
  it('each exits 0 within budget; the worker writes the batch in hand and its jobs are redelivered, not doubled', async () => {
    t = await createTestDatabase('redis_down_stop_apps');
    // AOF, stopped cleanly: the un-acknowledged jobs are still in Redis when it starts again.
    redis = await startPrivateRedis({ aof: true });
    stack = await startFaultStack({
      label: 'redis_down_stop_apps',
      databaseUrl: t.url,
      redisUrl: redis.url,
      // The worker holds its logs (fewer jobs than its concurrency) until the stop writes them.
      config: (c) => ({ ...c, worker: { ...c.worker, batch_wait_ms: 120_000 } }),
    });
    const worker = await stack.start('worker');
    const router = await stack.start('router');
    consoleApp = await spawnApp('console', stack.env, stack.config);
    const edge = await stack.start('edge');
    const key = await stack.createKey();

    const client = new OpenAI({ baseURL: `${edge.url}/v1`, apiKey: key.raw, maxRetries: 0 });
    const ids: string[] = [];
    for (let i = 0; i < REQUESTS; i++) {
      const { response } = await client.chat.completions
        .create({ model: 'mock-gpt', messages: [{ role: 'user', content: 'hi' }] })
        .withResponse();
      ids.push(response.headers.get('x-request-id')!);
    }
    await waitUntil(
      'the worker holds every log',
      async () =>
        ((await (await fetch(`${worker.url}/healthz`)).json()) as WorkerHealth).queue.pending === REQUESTS,
      10_000,
    );
    expect((await storedCounts(stack.db, ids)).logs.size).toBe(0);

    await redis.stop();
    const figures: Record<string, number> = {};
    for (const [name, app] of [
      ['worker', worker],
      ['router', router],
      ['console', consoleApp],
    ] as const) {
      const sigtermAt = Date.now();
      expect({ name, exit: await app.stop() }).toEqual({ name, exit: 0 });
      figures[`${name}ShutdownMsWithRedisDown`] = Date.now() - sigtermAt;
    }
    // The batch in hand was written before the worker went.
    expect(await rowsPerRequest(stack.db, ids)).toEqual(ids.map(() => 1));

    await redis.start();
    const restartedAt = Date.now();
    // A worker that writes at once (the first one held its logs on purpose).
    const writeAtOnce = { ...stack.config, worker: { ...stack.config.worker, batch_wait_ms: 20 } };
    nextWorker = await spawnApp('worker', stack.env, writeAtOnce);
    const bull = createRedis(redis.url, { forBullmq: true, name: 'test-queue' });
    const queue = new Queue(REQUEST_LOG_QUEUE, {
      connection: bull,
      prefix: redisKeys(stack.env.redisPrefix).bullPrefix,
    });
    let counts: Record<string, number> = {};
    try {
      // The jobs the stopped worker held come back once their lock expires, and complete.
      await waitUntil(
        'the held jobs redelivered and completed',
        async () => {
          counts = await queue.getJobCounts('active', 'wait', 'delayed', 'completed', 'failed');
          const { completed = 0, active = 0, wait = 0, delayed = 0, failed = 0 } = counts;
          return completed > 0 && active + wait + delayed + failed === 0;
        },
        60_000,
      ).catch((err: Error) => {
        throw new Error(`${err.message}; the queue held ${JSON.stringify(counts)}`);
      });
    } finally {
      await queue.close();
      bull.disconnect();
    }
    figures.msFromRedisUpToJobsCompleted = Date.now() - restartedAt;
    expect(await rowsPerRequest(stack.db, ids)).toEqual(ids.map(() => 1));
    recordFigures('shutdown-redis-down-other-apps', { ...figures, logsLost: 0, logsDoubled: 0 });
  }, 180_000);
});
