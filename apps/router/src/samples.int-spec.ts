import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createServer, type Server } from 'node:http';
import { type AddressInfo } from 'node:net';
import { type NestFastifyApplication } from '@nestjs/platform-fastify';
import { type Redis } from 'ioredis';
import { readEnv } from '#libs/config';
import { parseConfig } from '#libs/gateway-config';
import { createRedis, redisKeys } from '#libs/redis';
import { type RouteSample, type RouteTable } from '#libs/routing';
import { appendSamples, RouteTableWatcher } from '#libs/routing-stores';
import { dropRedisPrefix, TEST_REDIS_URL, uniqueRedisPrefix } from '../../../test/support/redis.js';
import { type RoutesResponse } from './routes/routes.controller.js';
import { createRouterApp } from './router.app.js';
import { until } from '../../../test/support/wait.js';

const prefix = uniqueRedisPrefix('router-samples');
const keys = redisKeys(prefix);
let upstream: Server;
let redis: Redis;
let watcher: RouteTableWatcher;
let app: NestFastifyApplication;

const COOLDOWN_MS = 700;

function sample(providerId: string, extra: Partial<RouteSample> = {}): RouteSample {
  return {
    providerId,
    model: 'm',
    at: Date.now(),
    outcome: 'ok',
    status: 200,
    latencyMs: 300,
    ttftMs: 80,
    retryAfterMs: null,
    ...extra,
  };
}

const failure = (providerId: string): RouteSample =>
  sample(providerId, { outcome: 'http_error', status: 500, latencyMs: 20, ttftMs: null });

function candidate(table: RouteTable | null, provider: string): string | undefined {
  const c = table?.models.m?.find((x) => x.providerId === provider);
  return c && `${c.state}: ${c.reason}`;
}

async function routes(): Promise<RoutesResponse> {
  return (await (await fetch(`${await app.getUrl()}/routes`)).json()) as RoutesResponse;
}

beforeAll(async () => {
  upstream = createServer((_req, res) =>
    res.writeHead(200, { 'content-type': 'application/json' }).end('{}'),
  );
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  const port = (upstream.address() as AddressInfo).port;
  redis = createRedis(TEST_REDIS_URL, { name: 'router-samples-int-spec' });
  watcher = new RouteTableWatcher(redis, keys);
  await watcher.start();
  const config = parseConfig({
    // Routing alone: no configuration store (these tests have no database of their own).
    config: { source: 'file' },
    router: {
      probe_interval_ms: 100,
      probe_timeout_ms: 300,
      breaker: { consecutive_failures: 5, min_samples: 100, cooldown_ms: COOLDOWN_MS, half_open_trials: 2 },
    },
    providers: ['a', 'b'].map((id) => ({
      id,
      type: 'openai',
      base_url: `http://127.0.0.1:${port}/v1`,
      models: ['m'],
    })),
    models: [
      {
        id: 'm',
        strategy: 'latency',
        owned_by: 'test',
        created: 0,
        pricing: { input_per_million: 1, output_per_million: 1 },
      },
    ],
    groups: {},
  });
  const env = readEnv({ REDIS_URL: TEST_REDIS_URL, REDIS_PREFIX: prefix });
  // One router, leader throughout: a lease long enough that a loaded machine's stalls (a renewal
  // due every third of it) cannot let it lapse, which made /routes say leader: false mid-test.
  app = await createRouterApp(env, config, { leaseMs: 3000, refreshMs: 400 });
  await app.listen(0, '127.0.0.1');
  await until(() => candidate(watcher.current(), 'a')?.startsWith('up'), 3000, 'first table');
  // The consumer reads from '$' once it leads: give its first blocking read time to be issued.
  await new Promise((r) => setTimeout(r, 200));
});

afterAll(async () => {
  await app.close();
  await watcher.stop();
  await redis.quit();
  await new Promise<void>((resolve) => upstream.close(() => resolve()));
  await dropRedisPrefix(prefix);
});

describe('router with passive samples', () => {
  it('opens the breaker on 5 failures within a second, goes half-open after the cooldown, closes on trials', async () => {
    const sentAt = Date.now();
    await appendSamples(redis, keys, [sample('a'), ...Array.from({ length: 5 }, () => failure('a'))]);
    const open = await until(
      () => candidate(watcher.current(), 'a')?.startsWith('down') && watcher.current(),
      1000,
      'a open',
    );
    expect(Date.now() - sentAt).toBeLessThan(1000);
    expect(candidate(open, 'a')).toMatch(
      /^down: breaker open: 5 consecutive failures \(HTTP 500\), half-open in 1s$/,
    );
    expect(open.models.m?.map((c) => c.providerId)).toEqual(['b', 'a']);

    const report = await routes();
    expect(report.leader).toBe(true);
    expect(report.strategies).toEqual({ m: 'latency' });
    const a = report.models.m?.find((c) => c.providerId === 'a');
    expect(a).toMatchObject({
      state: 'down',
      errorRate: 5 / 6,
      latencyMs: 300,
      ttftMs: 80,
      detail: {
        breaker: { phase: 'open', cause: '5 consecutive failures (HTTP 500)' },
        stats: {
          consecutiveFailures: 5,
          windowSamples: 6,
          windowFailures: 5,
          latencyP50Ms: 300,
          ttftP95Ms: 80,
        },
      },
    });

    await until(
      () => candidate(watcher.current(), 'a')?.startsWith('half_open'),
      COOLDOWN_MS + 1000,
      'half-open',
    );
    expect(Date.now() - sentAt).toBeGreaterThanOrEqual(COOLDOWN_MS);
    expect(candidate(watcher.current(), 'a')).toBe(
      'half_open: breaker half-open: 0 trial success(es) so far, after 5 consecutive failures (HTTP 500)',
    );

    await appendSamples(redis, keys, [sample('a'), sample('a')]);
    await until(() => candidate(watcher.current(), 'a')?.startsWith('up'), 1000, 'closed again');
    expect(candidate(watcher.current(), 'a')).toBe('up: up: p50 300ms, errors 0%; probe: HTTP 200');
    expect((await routes()).models.m?.find((c) => c.providerId === 'a')?.detail?.breaker).toEqual({
      phase: 'closed',
    });
  });

  it('takes a candidate down until its 429 retry-after has passed, without opening the breaker', async () => {
    const at = Date.now();
    await appendSamples(redis, keys, [
      sample('b', { at, outcome: 'rate_limited', status: 429, retryAfterMs: 1500, ttftMs: null }),
    ]);
    const limited = await until(
      () => candidate(watcher.current(), 'b')?.startsWith('down') && watcher.current(),
      1000,
      'b limited',
    );
    const until429 = new Date(at + 1500).toISOString().slice(11, 19);
    expect(candidate(limited, 'b')).toBe(`down: rate limited until ${until429} (retry-after 2s)`);
    const b = (await routes()).models.m?.find((c) => c.providerId === 'b');
    expect(b?.detail?.breaker).toEqual({ phase: 'closed' });
    expect(b?.detail?.stats.rateLimitedUntil).toBe(at + 1500);

    await until(() => candidate(watcher.current(), 'b')?.startsWith('up'), 2500, 'b back');
    expect(Date.now()).toBeGreaterThanOrEqual(at + 1500);
  });

  it('ignores samples about providers or models it does not route', async () => {
    await appendSamples(redis, keys, [failure('nobody'), { ...failure('a'), model: 'other' }]);
    await new Promise((r) => setTimeout(r, 200));
    const report = await routes();
    expect(Object.keys(report.models)).toEqual(['m']);
    expect(report.models.m?.map((c) => c.state)).toEqual(['up', 'up']);
  });
});
