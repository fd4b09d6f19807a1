import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from '@jest/globals';
import OpenAI from 'openai';
import { createTestDatabase, type TestDatabase } from '../support/db.js';
import { type PrivateRedis, startPrivateRedis } from '../support/private-servers.js';
import { type FaultStack, recordFigures, startFaultStack, waitUntil } from './fault-stack.js';

/**
 * SIGTERM to an edge whose Redis is gone while 63 requests are in flight (the independent probe's
 * case, issue 11: 12.3 s). Every request finishes, their logs go to the spool, and the stop takes
 * the requests' own remaining time plus bounded steps, not a wait on Redis. Idle, it stops at once
 * (issue 31): nothing waits on a connection known to be down, and its memory's logs are spooled.
 */
const IN_FLIGHT = 63;
// Long enough for all of them to be at the provider at once, on a loaded runner too.
const UPSTREAM_MS = 3_000;

let redis: PrivateRedis | undefined;
let stack: FaultStack | undefined;
let t: TestDatabase | undefined;

afterEach(async () => {
  await stack?.close();
  await redis?.destroy();
  await t?.drop();
  stack = redis = t = undefined;
}, 60_000);

interface Health {
  local: { inflight: Record<string, number> };
  logs: { pending: number; shipped: number; redisReachable: boolean };
}

/**
 * The stop of an idle edge with Redis known down, its memory's logs spooled: 63-376 ms measured on
 * a shared 2-core machine at load 8-10 (23-81 ms from the signal to the exit hook, the rest the
 * process's teardown). Under 1 s, so any wait of a 1 s bound on a connection known down (the
 * shared client's QUIT_WAIT_MS, the log queue's close) fails it; above the measure by 2.4 times.
 */
const IDLE_STOP_BOUND_MS = 900;

describe('edge SIGTERM with Redis down and requests in flight', () => {
  it(`finishes ${IN_FLIGHT} in-flight requests, spools their logs and exits 0 without waiting on Redis`, async () => {
    t = await createTestDatabase('redis_down_stop');
    redis = await startPrivateRedis();
    stack = await startFaultStack({ label: 'redis_down_stop', databaseUrl: t.url, redisUrl: redis.url });
    const edge = await stack.start('edge');
    const key = await stack.createKey();
    const client = new OpenAI({ baseURL: `${edge.url}/v1`, apiKey: key.raw, maxRetries: 0, timeout: 30_000 });
    const ask = () =>
      client.chat.completions.create({ model: 'mock-gpt', messages: [{ role: 'user', content: 'hi' }] }).then(
        () => 200,
        (err: unknown) => (err instanceof OpenAI.APIError ? (err.status ?? 0) : 0),
      );
    expect(await ask()).toBe(200); // the key is in the edge's memory from here on

    await redis.kill();
    stack.mock.setBehaviour({ latencyMs: UPSTREAM_MS });
    const answers = Promise.all(Array.from({ length: IN_FLIGHT }, ask));
    await waitUntil(
      `${IN_FLIGHT} requests at the provider`,
      async () => {
        const health = (await (await fetch(`${edge.url}/healthz`)).json()) as Health;
        return health.local.inflight['mock-openai'] === IN_FLIGHT;
      },
      20_000,
    );

    const sigtermAt = Date.now();
    expect(await edge.stop()).toBe(0);
    const shutdownMs = Date.now() - sigtermAt;
    const statuses = await answers;
    expect(statuses.filter((s) => s !== 200)).toEqual([]);
    expect(readdirSync(stack.spoolDir).length).toBeGreaterThan(0);

    // The requests' own remaining time (under UPSTREAM_MS) plus the bounded final flush (2 s) and
    // client closes (1 s): far below the 12.3 s the probe measured. Not a timing assertion: a stop
    // waiting on Redis waits for good (or until the 34 s budget exits 1).
    recordFigures('shutdown-redis-down-in-flight', {
      inFlight: IN_FLIGHT,
      upstreamMs: UPSTREAM_MS,
      shutdownMs,
    });
  }, 120_000);
});

describe('edge SIGTERM with Redis down, idle', () => {
  it('an idle edge with Redis down stops at once and spools the logs it held in memory', async () => {
    t = await createTestDatabase('redis_down_idle');
    redis = await startPrivateRedis();
    stack = await startFaultStack({ label: 'redis_down_idle', databaseUrl: t.url, redisUrl: redis.url });
    const edge = await stack.start('edge');
    const key = await stack.createKey();
    const health = async () => (await (await fetch(`${edge.url}/healthz`)).json()) as Health;
    const ask = async (): Promise<string> => {
      const res = await fetch(`${edge.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key.raw}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'mock-gpt', messages: [{ role: 'user', content: 'hi' }] }),
      });
      expect(res.status).toBe(200);
      await res.arrayBuffer();
      return res.headers.get('x-request-id')!;
    };
    await ask(); // the key is in the edge's memory from here on
    await waitUntil('the first log shipped', async () => (await health()).logs.shipped === 1, 10_000);

    await redis.kill();
    await waitUntil('the edge sees Redis down', async () => !(await health()).logs.redisReachable, 10_000);
    const held = [await ask(), await ask(), await ask()];
    await waitUntil('their logs held in memory', async () => (await health()).logs.pending === 3, 10_000);

    const sigtermAt = Date.now();
    expect(await edge.stop()).toBe(0);
    const shutdownMs = Date.now() - sigtermAt;
    // Zero loss: what the edge held in memory is in the spool, once each.
    const spooled = readdirSync(stack.spoolDir).flatMap((name) =>
      readFileSync(join(stack!.spoolDir, name), 'utf8')
        .split('\n')
        .filter((line) => line !== '')
        .map((line) => (JSON.parse(line) as { requestId: string }).requestId),
    );
    expect(spooled.sort()).toEqual([...held].sort());
    recordFigures('shutdown-redis-down-idle', { heldInMemory: held.length, shutdownMs });
    expect(shutdownMs).toBeLessThan(IDLE_STOP_BOUND_MS);
  }, 120_000);
});
