import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Queue } from 'bullmq';
import { createRedis, redisKeys } from '#libs/redis';
import { REQUEST_LOG_QUEUE } from '#libs/queue';
import { ATTR, installTestTelemetry, pointsOf, type TestTelemetry } from '#libs/telemetry';
import { dropRedisPrefix, TEST_REDIS_URL, uniqueRedisPrefix } from '../../../../test/support/redis.js';
import { QueueGauges } from './queue-gauges.js';

const prefix = uniqueRedisPrefix('queue-gauges');
const keys = redisKeys(prefix);
const connection = createRedis(TEST_REDIS_URL, { forBullmq: true });
let t: TestTelemetry;
let gauges: QueueGauges;
let producer: Queue;

beforeAll(async () => {
  t = await installTestTelemetry();
  gauges = new QueueGauges(connection, keys);
  gauges.onApplicationBootstrap();
  producer = new Queue(REQUEST_LOG_QUEUE, { connection, prefix: keys.bullPrefix });
});

afterAll(async () => {
  await gauges.onApplicationShutdown();
  await producer.close();
  connection.disconnect();
  await dropRedisPrefix(prefix);
  await t.uninstall();
});

describe('queue gauges (real Redis, no consumer)', () => {
  it('an empty queue: no lag, zero depth', async () => {
    expect(await gauges.lagSeconds()).toBe(0);
    const rm = await t.collect();
    const waiting = pointsOf(rm, 'gateway.queue.depth').find(
      (p) => p.attributes[ATTR.jobState] === 'waiting',
    );
    expect(waiting?.value).toBe(0);
  });

  it('lag is the age of the oldest waiting job; depth counts the waiting ones', async () => {
    await producer.add('logs', { v: 1, logs: [] }, { timestamp: Date.now() - 30_000 });
    await producer.add('logs', { v: 1, logs: [] }, { timestamp: Date.now() - 5_000 });
    const lag = await gauges.lagSeconds();
    expect(lag).toBeGreaterThanOrEqual(30);
    expect(lag).toBeLessThan(60);
    const rm = await t.collect();
    const depth = pointsOf(rm, 'gateway.queue.depth');
    expect(depth.find((p) => p.attributes[ATTR.jobState] === 'waiting')?.value).toBe(2);
    expect(depth.find((p) => p.attributes[ATTR.jobState] === 'failed')?.value).toBe(0);
    expect(pointsOf(rm, 'gateway.queue.lag')[0]).toMatchObject({
      attributes: { [ATTR.queue]: REQUEST_LOG_QUEUE },
    });
    expect(pointsOf(rm, 'gateway.queue.lag')[0]!.value).toBeGreaterThanOrEqual(30);
  });
});
