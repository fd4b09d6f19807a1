import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { type AddressInfo } from 'node:net';
import { type NestFastifyApplication } from '@nestjs/platform-fastify';
import { type Redis } from 'ioredis';
import { readEnv } from '#libs/config';
import { parseConfig } from '#libs/gateway-config';
import { createRedis, redisKeys } from '#libs/redis';
import { GracefulDrain } from '#libs/runtime';
import { type RouteTable } from '#libs/routing';
import { RouteTableWatcher } from '#libs/routing-stores';
import { dropRedisPrefix, TEST_REDIS_URL, uniqueRedisPrefix } from '../../../test/support/redis.js';
import { type RoutesResponse } from './routes/routes.controller.js';
import { createRouterApp } from './router.app.js';
import { until } from '../../../test/support/wait.js';

/** A tiny upstream: answers the model listing with `status`, records what it was sent. */
class Upstream {
  status = 200;
  readonly seen: { path: string; headers: IncomingHttpHeaders; status: number }[] = [];
  port = 0;
  private server: Server | null = null;

  async start(): Promise<this> {
    const server = createServer((req, res) => {
      this.seen.push({ path: req.url ?? '', headers: req.headers, status: this.status });
      res.writeHead(this.status, { 'content-type': 'application/json' }).end('{"object":"list","data":[]}');
    });
    await new Promise<void>((resolve) => server.listen(this.port, '127.0.0.1', resolve));
    this.port = (server.address() as AddressInfo).port;
    this.server = server;
    return this;
  }

  /** Killed, as a crashed vendor endpoint: the port refuses connections. */
  async kill(): Promise<void> {
    const server = this.server;
    this.server = null;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

const prefix = uniqueRedisPrefix('router');
const keys = redisKeys(prefix);
const upA = new Upstream();
const upB = new Upstream();
let redis: Redis;
let watcher: RouteTableWatcher;
const apps: NestFastifyApplication[] = [];

function gatewayConfig() {
  return parseConfig({
    // Routing alone: no configuration store (these tests have no database of their own).
    config: { source: 'file' },
    router: { probe_interval_ms: 50, probe_timeout_ms: 300, down_after_failures: 2 },
    providers: [
      {
        id: 'a',
        type: 'openai',
        base_url: `http://127.0.0.1:${upA.port}/v1`,
        api_key_env: 'A_API_KEY',
        models: ['m'],
        weight: 2,
      },
      {
        id: 'b',
        type: 'anthropic',
        base_url: `http://127.0.0.1:${upB.port}`,
        api_key_env: 'B_API_KEY',
        models: [{ id: 'm', upstream: 'b-m' }, 'only-b'],
        probe_path: '/v1/models',
      },
      // Disabled (its secret is unset): must never be probed, though it points at a live upstream.
      {
        id: 'c',
        type: 'openai',
        base_url: `http://127.0.0.1:${upA.port}/never`,
        api_key_env: 'C_API_KEY',
        models: ['m'],
      },
    ],
    models: ['m', 'only-b'].map((id) => ({
      id,
      owned_by: 'test',
      created: 0,
      pricing: { input_per_million: 1, output_per_million: 1 },
    })),
    groups: { default: ['m', 'only-b'] },
  });
}

async function startRouter(): Promise<NestFastifyApplication> {
  const env = readEnv({
    REDIS_URL: TEST_REDIS_URL,
    REDIS_PREFIX: prefix,
    A_API_KEY: 'sk-a-secret',
    B_API_KEY: 'sk-b-secret',
  });
  const app = await createRouterApp(env, gatewayConfig(), { leaseMs: 600, refreshMs: 400 });
  await app.listen(0, '127.0.0.1');
  apps.push(app);
  return app;
}

async function getJson<T>(app: NestFastifyApplication, path: string): Promise<{ status: number; body: T }> {
  const res = await fetch(`${await app.getUrl()}${path}`);
  return { status: res.status, body: (await res.json()) as T };
}

function stateOf(table: RouteTable | null, model: string, provider: string): string | undefined {
  const c = table?.models[model]?.find((x) => x.providerId === provider);
  return c && `${c.state}: ${c.reason}`;
}

beforeAll(async () => {
  await upA.start();
  await upB.start();
  redis = createRedis(TEST_REDIS_URL, { name: 'router-int-spec' });
  watcher = new RouteTableWatcher(redis, keys);
  await watcher.start();
});

afterEach(() => {
  upA.status = 200;
});

afterAll(async () => {
  for (const app of apps.splice(0)) await app.close();
  await watcher.stop();
  await redis.quit();
  await Promise.all([upA.kill(), upB.kill()]);
  await dropRedisPrefix(prefix);
});

describe('router', () => {
  it('probes with each vendor auth, publishes a ranked table and serves it on GET /routes', async () => {
    const app = await startRouter();
    await until(
      () =>
        stateOf(watcher.current(), 'm', 'b') === 'up: probe: HTTP 200' &&
        stateOf(watcher.current(), 'm', 'a'),
      3000,
      'first table',
    );

    const { status, body } = await getJson<RoutesResponse>(app, '/routes');
    expect(status).toBe(200);
    expect(body.leader).toBe(true);
    expect(body.version).toBeGreaterThan(0);
    expect(new Date(body.generatedAt ?? '').toISOString()).toBe(body.generatedAt);
    expect(body.strategies).toEqual({ m: 'priority', 'only-b': 'priority' });
    expect(body.models.m).toEqual([
      {
        providerId: 'a',
        upstreamModel: 'm',
        priority: 0,
        weight: 2,
        state: 'up',
        reason: 'probe: HTTP 200',
        latencyMs: expect.any(Number),
        ttftMs: null,
        errorRate: 0,
      },
      {
        providerId: 'b',
        upstreamModel: 'b-m',
        priority: 0,
        weight: 1,
        state: 'up',
        reason: 'probe: HTTP 200',
        latencyMs: expect.any(Number),
        ttftMs: null,
        errorRate: 0,
      },
      {
        providerId: 'c',
        upstreamModel: 'm',
        priority: 0,
        weight: 1,
        state: 'disabled',
        reason: 'env C_API_KEY is not set, or not declared for provider keys (GATEWAY_PROVIDER_KEY_VARS)',
      },
    ]);
    expect(body.models['only-b']?.map((c) => c.providerId)).toEqual(['b']);

    const a = upA.seen[0];
    expect(a?.path).toBe('/v1/models');
    expect(a?.headers.authorization).toBe('Bearer sk-a-secret');
    const b = upB.seen[0];
    expect(b?.path).toBe('/v1/models');
    expect(b?.headers['x-api-key']).toBe('sk-b-secret');
    expect(b?.headers['anthropic-version']).toBe('2023-06-01');
    expect(b?.headers.authorization).toBeUndefined();
    expect(upA.seen.every((r) => r.path === '/v1/models')).toBe(true);

    expect((await getJson(app, '/healthz')).body).toEqual({ status: 'ok' });
    const ready = await getJson<{ ready: boolean }>(app, '/readyz');
    expect([ready.status, ready.body.ready]).toEqual([200, true]);

    const drain = app.get(GracefulDrain);
    drain.beginDraining(); // what runMain does on SIGTERM, before the lease is released
    try {
      const stopping = await getJson(app, '/readyz');
      expect(stopping).toEqual({ status: 503, body: { ready: false, draining: true } });
    } finally {
      drain.draining = false;
    }
  });

  it('marks a killed upstream down within a few intervals, and up again when it is back', async () => {
    const changes: RouteTable[] = [];
    const off = watcher.onChange((t) => changes.push(t));
    const killedAt = Date.now();
    await upB.kill();
    const down = await until(
      () => changes.find((t) => stateOf(t, 'm', 'b')?.startsWith('down')),
      1500,
      'b marked down',
    );
    expect(Date.now() - killedAt).toBeLessThan(1500);
    expect(stateOf(down, 'm', 'b')).toBe('down: probe: ECONNREFUSED');
    // Ranked after the healthy provider, whatever its weight.
    expect(down.models.m?.map((c) => c.providerId)).toEqual(['a', 'b', 'c']);

    await upB.start(); // same port
    await until(() => stateOf(watcher.current(), 'm', 'b') === 'up: probe: HTTP 200', 1500, 'b back up');
    off();
  });

  it('counts 5xx probes as failures: one is tolerated, two take the provider down', async () => {
    const seen: (string | undefined)[] = [];
    let failedProbesAtDown = -1;
    const off = watcher.onChange((t) => {
      const state = stateOf(t, 'm', 'a');
      seen.push(state);
      if (state?.startsWith('down') && failedProbesAtDown < 0)
        failedProbesAtDown = upA.seen.filter((r) => r.status === 503).length;
    });
    // As after a Redis restart without persistence: the next version must still be newer, or edges
    // holding the old table would ignore every later one.
    await redis.del(keys.routesVersion);
    upA.status = 503;
    await until(() => seen.includes('down: probe: HTTP 503'), 1500, 'a down on 503');
    // One failed probe is tolerated: down only after the second.
    expect(failedProbesAtDown).toBeGreaterThanOrEqual(2);
    // Figures-only republishes of the healthy state may come first (a probe cycle could be in
    // flight), and the "1/2" reason may be folded into the down publish (reason-only changes are
    // published at most once per probe interval), but nothing else comes between.
    const changes = seen.filter((s) => s !== 'up: probe: HTTP 200');
    expect([
      ['up: probe: HTTP 503 (1/2 failures)', 'down: probe: HTTP 503'],
      ['down: probe: HTTP 503'],
    ]).toContainEqual(changes.slice(0, changes.indexOf('down: probe: HTTP 503') + 1));
    upA.status = 200;
    await until(() => stateOf(watcher.current(), 'm', 'a') === 'up: probe: HTTP 200', 1500, 'a back up');
    off();
  });

  it('with two replicas only one leads, and versions never go backwards across a handover', async () => {
    const versions: number[] = [];
    const sub = redis.duplicate();
    sub.on('message', (_channel: string, message: string) =>
      versions.push((JSON.parse(message) as RouteTable).version),
    );
    await sub.subscribe(keys.routesChannel);

    const [first] = apps;
    const second = await startRouter();
    await new Promise((r) => setTimeout(r, 300));
    const seenBefore = watcher.current()?.version ?? 0;
    const leaders = await Promise.all(
      apps.map(async (app) => (await getJson<RoutesResponse>(app, '/routes')).body),
    );
    expect(leaders.map((r) => r.leader)).toEqual([true, false]);
    // The follower serves the published table (the leader republishes as probe figures move).
    expect(leaders[1]?.version).toBeGreaterThanOrEqual(seenBefore);
    expect(leaders[1]?.models.m?.map((c) => c.providerId)).toEqual(['a', 'b', 'c']);

    await first!.close(); // releases the lease
    apps.splice(0, 1);
    const started = Date.now();
    while (!(await getJson<RoutesResponse>(second, '/routes')).body.leader) {
      if (Date.now() - started > 2000) throw new Error('handover: second not leader within 2000ms');
      await new Promise((r) => setTimeout(r, 20));
    }
    const before = watcher.current()?.version ?? 0;
    const took = await until(
      () => (watcher.current()?.version ?? 0) > before && watcher.current(),
      2000,
      'first table of the new leader',
    );
    expect(stateOf(took, 'm', 'a')).toBe('up: probe: HTTP 200');

    await sub.quit();
    expect(versions.length).toBeGreaterThan(0);
    for (let i = 1; i < versions.length; i++) expect(versions[i]).toBeGreaterThanOrEqual(versions[i - 1]!);
  });
});
