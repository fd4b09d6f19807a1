import { readdirSync } from 'node:fs';
import { afterEach, describe, expect, it } from '@jest/globals';
import OpenAI from 'openai';
import { type AppProcess } from '../support/app-process.js';
import { createTestDatabase, type TestDatabase } from '../support/db.js';
import { type PrivateRedis, startPrivateRedis } from '../support/private-servers.js';
import { type FaultStack, recordFigures, startFaultStack, storedCounts, waitUntil } from './fault-stack.js';

/**
 * An edge started while Redis is down, on a private redis-server (the shared one is never
 * touched): it comes up, serves a key from Postgres on the config's routes with quota admitted
 * unchecked, holds and spools its logs, says so in /readyz, and catches up once Redis starts:
 * route table from the router, logs replayed into the queue and stored. Worker and router run
 * through the same outage; no app prints ioredis's "Unhandled error event", and each logs the
 * outage once, not once per reconnect attempt.
 */

interface Ready {
  ready: boolean;
  redis: boolean;
  keys: string;
  routes: { source: string };
  quota: string;
  logs: string;
}

let redis: PrivateRedis | undefined;
let stack: FaultStack | undefined;
let t: TestDatabase | undefined;

afterEach(async () => {
  await stack?.close();
  await redis?.destroy();
  await t?.drop();
  stack = redis = t = undefined;
}, 60_000);

async function readyz(url: string): Promise<{ status: number; body: Ready }> {
  const r = await fetch(`${url}/readyz`);
  return { status: r.status, body: (await r.json()) as Ready };
}

/** The lines an app wrote since `from` (an offset into its output). */
function linesSince(app: AppProcess, from: number): string[] {
  return app
    .output()
    .slice(from)
    .split('\n')
    .filter((l) => l.length > 0);
}

describe('edge started while Redis is down', () => {
  it('comes up, serves what it can, reports it, catches up when Redis starts; no app floods its log', async () => {
    t = await createTestDatabase('redis_down_start');
    redis = await startPrivateRedis();
    stack = await startFaultStack({
      label: 'redis_down_start',
      databaseUrl: t.url,
      redisUrl: redis.url,
      // A small buffer: logs reach the spool during the outage, so its replay is exercised.
      config: (c) => ({ ...c, edge: { ...c.edge, log_buffer_max: 2 } }),
    });
    const worker = await stack.start('worker');
    const router = await stack.start('router');
    const key = await stack.createKey();

    const outputAt = { worker: worker.output().length, router: router.output().length };
    await redis.stop();
    const bootAt = Date.now();
    const edge = await stack.start('edge');
    const bootMs = Date.now() - bootAt;

    const down = await readyz(edge.url);
    expect(down).toMatchObject({
      status: 200,
      body: { ready: true, redis: false, keys: 'memory and postgres', routes: { source: 'config' } },
    });
    expect(down.body.quota).toBe('admitted unchecked');

    const client = new OpenAI({ baseURL: `${edge.url}/v1`, apiKey: key.raw, maxRetries: 0 });
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) {
      const { data, response } = await client.chat.completions
        .create({ model: 'mock-gpt', messages: [{ role: 'user', content: 'hi' }] })
        .withResponse();
      expect(data.choices[0]?.message.content).toBeTruthy();
      ids.push(response.headers.get('x-request-id')!);
    }
    await waitUntil(
      'logs held and spooled',
      async () => (await readyz(edge.url)).body.logs !== 'queued',
      5_000,
    );
    expect(readdirSync(stack.spoolDir).length).toBeGreaterThan(0);
    // Every app has seen the outage by now (the worker and router were connected when it began).
    await waitUntil(
      'worker and router noticed',
      async () =>
        [worker, router].every((app) => linesSince(app, 0).some((l) => l.includes('"context":"Redis"'))),
      10_000,
    );

    const noise = {
      edge: linesSince(edge, 0),
      worker: linesSince(worker, outputAt.worker),
      router: linesSince(router, outputAt.router),
    };
    for (const [app, lines] of Object.entries(noise)) {
      expect({ app, unhandled: lines.filter((l) => l.includes('Unhandled error event')) }).toEqual({
        app,
        unhandled: [],
      });
      const outage = lines.filter((l) => l.includes('"context":"Redis"') && l.includes('unreachable'));
      // Not once per reconnect attempt. The edge's key resolver still warns at each one (its
      // subscriber's own error listener): left to its owner.
      if (app !== 'edge')
        expect({ app, refused: lines.filter((l) => l.includes('ECONNREFUSED')) }).toEqual({
          app,
          refused: [outage[0]],
        });
      expect({ app, outageWarnings: outage.length }).toEqual({ app, outageWarnings: 1 });
      expect(outage[0]).toContain('"level":"warn"');
    }

    await redis.start();
    let last: Ready | undefined;
    const caughtUpMs = await waitUntil(
      'the edge caught up (Redis, quota, logs, the router table)',
      async () => {
        const { body } = await readyz(edge.url);
        last = body;
        return (
          body.redis && body.quota === 'enforced' && body.logs === 'queued' && body.routes.source === 'router'
        );
      },
      30_000,
    ).catch((err: Error) => {
      throw new Error(`${err.message}; /readyz said ${JSON.stringify(last)}`);
    });
    const storedMs = await waitUntil(
      'every log stored',
      async () => (await storedCounts(stack!.db, ids)).logs.size === ids.length,
      30_000,
    );
    await waitUntil('the spool emptied', async () => readdirSync(stack!.spoolDir).length === 0, 10_000);
    const { logs } = await storedCounts(stack.db, ids);
    expect(ids.filter((id) => logs.get(id) !== 1)).toEqual([]);
    for (const app of [edge, worker, router]) {
      const back = linesSince(app, 0).filter(
        (l) => l.includes('"context":"Redis"') && l.includes('reachable again'),
      );
      expect(back).toHaveLength(1);
    }

    recordFigures('redis-down-start', {
      edgeBootMsWithRedisDown: bootMs,
      servedWithoutRedis: ids.length,
      msFromRedisUpToCaughtUp: caughtUpMs,
      msFromRedisUpToLogsStored: storedMs + caughtUpMs,
      logsLost: 0,
    });
  }, 180_000);
});
