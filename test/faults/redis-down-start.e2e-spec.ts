import { readdirSync } from 'node:fs';
import { createServer, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from '@jest/globals';
import OpenAI from 'openai';
import { readEnv } from '#libs/config';
import { type AppProcess, spawnApp } from '../support/app-process.js';
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
    // Several keys: each is a key cache miss, which must not log a line of its own.
    const keys = [await stack.createKey(), await stack.createKey(), await stack.createKey()];

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

    const clients = keys.map((k) => new OpenAI({ baseURL: `${edge.url}/v1`, apiKey: k.raw, maxRetries: 0 }));
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) {
      const { data, response } = await clients[i % clients.length]!.chat.completions.create({
        model: 'mock-gpt',
        messages: [{ role: 'user', content: 'hi' }],
      }).withResponse();
      expect(data.choices[0]?.message.content).toBeTruthy();
      ids.push(response.headers.get('x-request-id')!);
    }
    await waitUntil(
      'logs held and spooled',
      async () => (await readyz(edge.url)).body.logs !== 'queued',
      5_000,
    );
    // /readyz says so from the connection's state at once; the spool file comes with the next flush.
    const spoolDir = stack.spoolDir;
    await waitUntil('logs in the spool', async () => readdirSync(spoolDir).length > 0, 5_000);
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
      // Not once per reconnect attempt, nor once per request that missed the key cache: a line
      // naming the refused connection at most once per logger (the outage, the log queue's state).
      const refusedBy = new Map<string, number>();
      for (const l of lines.filter((line) => line.includes('ECONNREFUSED'))) {
        const context = /"context":"([^"]+)"/.exec(l)?.[1] ?? l;
        refusedBy.set(context, (refusedBy.get(context) ?? 0) + 1);
      }
      expect({ app, refused: [...refusedBy].filter(([, n]) => n > 1) }).toEqual({ app, refused: [] });
      expect({ app, outageWarnings: outage.length }).toEqual({ app, outageWarnings: 1 });
      const cacheReads = lines.filter((l) => l.includes('key cache read'));
      expect({ app, cacheReadWarnings: cacheReads.length }).toEqual({
        app,
        cacheReadWarnings: app === 'edge' ? 1 : 0,
      });
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
    // Each app reconnects on its own backoff (up to 2 s per connection), not when the edge did.
    const back = (app: AppProcess) =>
      linesSince(app, 0).filter((l) => l.includes('"context":"Redis"') && l.includes('reachable again'));
    await waitUntil(
      'every app said Redis is back',
      async () => [edge, worker, router].every((a) => back(a).length > 0),
      10_000,
    ).catch((err: Error) => {
      const redisLines = (app: AppProcess) =>
        linesSince(app, 0).filter((l) => l.includes('"context":"Redis"'));
      throw new Error(
        `${err.message}; ${JSON.stringify({ edge: redisLines(edge), worker: redisLines(worker), router: redisLines(router) })}`,
      );
    });
    for (const [app, process] of Object.entries({ edge, worker, router })) {
      expect({ app, back: back(process).length }).toEqual({ app, back: 1 });
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

describe('edge started while Redis accepts connections and never answers', () => {
  it('comes up without waiting on it, routes on the config and says Redis is not there', async () => {
    // A hung Redis, or a proxy whose backend is gone: no error for the clients to see. Before,
    // the edge's start waited for the route table's subscription for good (an unanswered packet
    // path waits out ioredis's 10 s connect timeout instead).
    t = await createTestDatabase('redis_silent_start');
    redis = await startPrivateRedis();
    stack = await startFaultStack({ label: 'redis_silent_start', databaseUrl: t.url, redisUrl: redis.url });
    const sockets: Socket[] = [];
    const silent = createServer((socket) => {
      sockets.push(socket);
      socket.on('error', () => undefined);
    });
    await new Promise<void>((ok) => silent.listen(0, '127.0.0.1', ok));
    try {
      let bootAt = Date.now();
      const up = await stack.start('edge');
      const bootMsWithRedisUp = Date.now() - bootAt;
      expect(await up.stop()).toBe(0);

      const { port } = silent.address() as { port: number };
      const env = readEnv({
        REDIS_URL: `redis://127.0.0.1:${port}`,
        REDIS_PREFIX: stack.env.redisPrefix,
        DATABASE_URL: stack.env.databaseUrl,
      });
      bootAt = Date.now();
      const edge = await spawnApp('edge', env, stack.config);
      const bootMsWithRedisSilent = Date.now() - bootAt;
      try {
        expect(await readyz(edge.url)).toMatchObject({
          status: 200,
          body: { ready: true, redis: false, routes: { source: 'config' } },
        });
      } finally {
        expect(await edge.stop()).toBe(0);
      }
      recordFigures('redis-silent-start', { bootMsWithRedisUp, bootMsWithRedisSilent });
    } finally {
      for (const socket of sockets) socket.destroy();
      silent.close();
    }
  }, 120_000);
});
