import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { type Redis } from 'ioredis';
import { createRedis, redisKeys } from '#libs/redis';
import { type RouteTable } from '#libs/routing';
import { startLateRedis } from '../../../test/support/late-redis.js';
import { startPrivateRedis } from '../../../test/support/private-servers.js';
import { dropRedisPrefix, TEST_REDIS_URL, uniqueRedisPrefix } from '../../../test/support/redis.js';
import { publishRouteTable, RouteTableWatcher } from './routes.store.js';

const prefix = uniqueRedisPrefix('routes');
const keys = redisKeys(prefix);
let redis: Redis;
const watchers: RouteTableWatcher[] = [];

function tableV(version: number, state: 'up' | 'down' = 'up'): RouteTable {
  return {
    version,
    generatedAt: new Date(0).toISOString(),
    models: {
      m: [{ providerId: 'a', upstreamModel: 'm', priority: 0, weight: 1, state, reason: `v${version}` }],
    },
  };
}

async function watcher(warnings: string[] = []): Promise<RouteTableWatcher> {
  const w = new RouteTableWatcher(redis, keys, { warn: (m) => warnings.push(m) });
  watchers.push(w);
  await w.start();
  return w;
}

async function until(check: () => boolean, timeoutMs: number): Promise<number> {
  const started = Date.now();
  while (!check()) {
    if (Date.now() - started > timeoutMs) throw new Error(`condition not met within ${timeoutMs}ms`);
    await new Promise((r) => setTimeout(r, 5));
  }
  return Date.now() - started;
}

/** Drops the watchers' subscriber connections server-side, as a network blip would. */
async function killSubscribers(): Promise<number> {
  const list = (await redis.client('LIST')) as string;
  const ids = list
    .split('\n')
    .filter((line) => line.includes(` name=${prefix}:routes-watcher `))
    .map((line) => /(?:^|\s)id=(\d+)/.exec(line)?.[1])
    .filter((id): id is string => id !== undefined);
  for (const id of ids) await redis.client('KILL', 'ID', id);
  return ids.length;
}

beforeAll(() => {
  redis = createRedis(TEST_REDIS_URL, { name: 'routes-int-spec' });
});

afterEach(async () => {
  await Promise.all(watchers.splice(0).map((w) => w.stop()));
  await redis.del(keys.routes);
});

afterAll(async () => {
  await redis.quit();
  await dropRedisPrefix(prefix);
});

describe('publishRouteTable + RouteTableWatcher', () => {
  it('starts from the stored table, or from nothing', async () => {
    const empty = await watcher();
    expect(empty.current()).toBeNull();
    expect(empty.lastUpdate()).toBe(0);
    await publishRouteTable(redis, keys, tableV(4));
    const late = await watcher();
    expect(late.current()?.version).toBe(4);
    expect(late.lastUpdate()).toBeGreaterThan(0);
  });

  it('pushes a change to two watchers within 100 ms and stores it for late readers', async () => {
    const [a, b] = [await watcher(), await watcher()];
    const seen: number[] = [];
    a.onChange((t) => seen.push(t.version));
    await publishRouteTable(redis, keys, tableV(10, 'down'));
    const elapsed = await until(() => a.current()?.version === 10 && b.current()?.version === 10, 100);
    expect(elapsed).toBeLessThan(100);
    expect(seen).toEqual([10]);
    expect(b.current()?.models.m?.[0]?.state).toBe('down');
    expect(JSON.parse((await redis.get(keys.routes)) ?? 'null')).toEqual(tableV(10, 'down'));
  });

  it('ignores an older version, and a republished same version only refreshes lastUpdate', async () => {
    const w = await watcher();
    const changes: number[] = [];
    w.onChange((t) => changes.push(t.version));
    await publishRouteTable(redis, keys, tableV(20));
    await until(() => w.current()?.version === 20, 1000);
    await publishRouteTable(redis, keys, tableV(19, 'down'));
    const before = w.lastUpdate();
    await new Promise((r) => setTimeout(r, 20));
    await publishRouteTable(redis, keys, tableV(20));
    await until(() => w.lastUpdate() > before, 1000);
    expect(w.current()).toEqual(tableV(20));
    expect(changes).toEqual([20]);
  });

  it('ignores invalid JSON and non-tables with a warning, and keeps working', async () => {
    const warnings: string[] = [];
    const w = await watcher(warnings);
    await redis.publish(keys.routesChannel, '{oops');
    await redis.publish(keys.routesChannel, JSON.stringify({ version: 'x' }));
    await publishRouteTable(redis, keys, tableV(30));
    await until(() => w.current()?.version === 30, 1000);
    expect(warnings).toHaveLength(2);
    expect(warnings[0]).toMatch(/ignoring route table from pub\/sub: not JSON/);
    expect(warnings[1]).toMatch(/not a route table/);
  });

  it('survives a corrupt stored key at start', async () => {
    await redis.set(keys.routes, 'garbage');
    const warnings: string[] = [];
    const w = await watcher(warnings);
    expect(w.current()).toBeNull();
    expect(warnings).toHaveLength(1);
  });

  it('re-reads the key after its subscriber reconnects, so a missed message cannot leave it stale', async () => {
    const w = await watcher();
    await publishRouteTable(redis, keys, tableV(40));
    await until(() => w.current()?.version === 40, 1000);
    // Written while nobody hears it: only the re-read after reconnect can find it.
    await redis.set(keys.routes, JSON.stringify(tableV(41, 'down')));
    expect(await killSubscribers()).toBe(1);
    await until(() => w.current()?.version === 41, 3000);
    // And the resubscribed connection still receives pushes.
    await publishRouteTable(redis, keys, tableV(42));
    await until(() => w.current()?.version === 42, 1000);
  });

  it('starts although Redis answers new connections late, and takes the table from the next push', async () => {
    // The edge's shared client bounds every command (so requests fall back promptly). Under load a
    // new connection's first replies come past that bound: the subscriber's, and the client's own
    // while it is still connecting.
    const late = await startLateRedis();
    late.holdNewConnections(600);
    const client = createRedis(late.url, { name: 'routes-late', commandTimeoutMs: 200 });
    client.on('error', () => undefined); // its handshake times out until the test ends
    const warnings: string[] = [];
    try {
      await publishRouteTable(redis, keys, tableV(60));
      const w = new RouteTableWatcher(client, keys, { warn: (m) => warnings.push(m) });
      watchers.push(w);
      await w.start(); // threw 'Command timed out': the subscribe, then the first read
      expect(w.current()).toBeNull();
      expect(warnings).toEqual([expect.stringMatching(/^route table not read at start: /)]);
      await publishRouteTable(redis, keys, tableV(61));
      await until(() => w.current()?.version === 61, 3000);
      await w.stop();
    } finally {
      client.disconnect();
      await late.close();
    }
  });

  it('starts while Redis is down, subscribes and takes the table once it is back, stops without waiting for it', async () => {
    const server = await startPrivateRedis();
    const client = createRedis(server.url, { name: 'routes-down', commandTimeoutMs: 200 });
    try {
      await server.stop();
      const w = new RouteTableWatcher(client, keys, { warn: () => undefined });
      await w.start(); // waited for the subscribe, which failed after 3 attempts: the edge exited
      expect(w.current()).toBeNull();
      await server.start();
      // Republished as the router does (every second) until the subscription, made once Redis is
      // back, hears it.
      for (let i = 0; w.current()?.version !== 70; i++) {
        if (i === 100) throw new Error('the table never arrived');
        await publishRouteTable(client, keys, tableV(70)).catch(() => undefined);
        await new Promise((r) => setTimeout(r, 100));
      }
      await server.stop();
      await w.stop(); // QUIT queued for a Redis that is down waited forever
    } finally {
      client.disconnect();
      await server.destroy();
    }
  }, 30_000);

  it('stops cleanly: no more updates, listeners dropped', async () => {
    const w = await watcher();
    let calls = 0;
    w.onChange(() => calls++);
    await w.stop();
    await publishRouteTable(redis, keys, tableV(50));
    await new Promise((r) => setTimeout(r, 50));
    expect(w.current()).toBeNull();
    expect(calls).toBe(0);
  });
});
