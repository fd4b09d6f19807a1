import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createServer, type Server } from 'node:http';
import { type AddressInfo } from 'node:net';
import { type NestFastifyApplication } from '@nestjs/platform-fastify';
import { type Redis } from 'ioredis';
import { readEnv } from '#libs/config';
import { parseConfig } from '#libs/gateway-config';
import { createRedis, redisKeys } from '#libs/redis';
import { type RouteTable } from '#libs/routing';
import { RouteTableWatcher } from '#libs/routing-stores';
import { dropRedisPrefix, TEST_REDIS_URL, uniqueRedisPrefix } from '../../../test/support/redis.js';
import { until } from '../../../test/support/wait.js';
import { createRouterApp } from './router.app.js';

/**
 * Three providers on one upstream with one key (one vendor account split by model list) are probed
 * once a cycle, and each takes the outcome; a fourth on the same upstream with another key keeps a
 * probe of its own.
 */
const prefix = uniqueRedisPrefix('router_shared');
const seen: { auth: string; at: number }[] = [];
/** The status the upstream answers each key with. */
const status = new Map<string, number>();
let server: Server;
let port = 0;
let redis: Redis;
let watcher: RouteTableWatcher;
let app: NestFastifyApplication;

const provider = (id: string, keyEnv: string, models: string[]) => ({
  id,
  type: 'openai',
  base_url: `http://127.0.0.1:${port}/v1`,
  api_key_env: keyEnv,
  models,
});

beforeAll(async () => {
  server = createServer((req, res) => {
    const auth = req.headers.authorization ?? '';
    seen.push({ auth, at: Date.now() });
    res.writeHead(status.get(auth) ?? 200, { 'content-type': 'application/json' }).end('{"data":[]}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
  redis = createRedis(TEST_REDIS_URL, { name: 'router-shared-probes' });
  watcher = new RouteTableWatcher(redis, redisKeys(prefix));
  await watcher.start();
  const config = parseConfig({
    config: { source: 'file' },
    router: { probe_interval_ms: 100, probe_timeout_ms: 300, down_after_failures: 2 },
    providers: [
      provider('s1', 'SHARED_API_KEY', ['m1']),
      provider('s2', 'SHARED_API_KEY', ['m2']),
      provider('s3', 'SHARED_API_KEY', ['m3']),
      provider('own', 'OWN_API_KEY', ['m1']),
    ],
    models: ['m1', 'm2', 'm3'].map((id) => ({
      id,
      owned_by: 'test',
      created: 0,
      pricing: { input_per_million: 1, output_per_million: 1 },
    })),
    groups: { default: ['m1', 'm2', 'm3'] },
  });
  const env = readEnv({
    REDIS_URL: TEST_REDIS_URL,
    REDIS_PREFIX: prefix,
    SHARED_API_KEY: 'sk-shared',
    OWN_API_KEY: 'sk-own',
  });
  app = await createRouterApp(env, config, { leaseMs: 3000, refreshMs: 200 });
  await app.listen(0, '127.0.0.1');
});

afterAll(async () => {
  await app?.close();
  await watcher?.stop();
  await redis?.quit();
  server?.closeAllConnections();
  await new Promise<void>((resolve) => server?.close(() => resolve()));
  await dropRedisPrefix(prefix);
});

const stateOf = (table: RouteTable | null, model: string, id: string): string | undefined => {
  const c = table?.models[model]?.find((x) => x.providerId === id);
  return c && `${c.state}: ${c.reason}`;
};

describe('probes shared by providers on one upstream and key', () => {
  it('sends one probe a cycle for the three, and applies its outcome to each', async () => {
    await until(
      () =>
        ['m1', 'm2', 'm3'].every(
          (m) => stateOf(watcher.current(), m, `s${m[1]}`) === 'up: probe: HTTP 200',
        ) && stateOf(watcher.current(), 'm1', 'own') === 'up: probe: HTTP 200',
      5000,
      'all four up',
    );
    // Over a window of cycles, the three shared providers cost as many probes as the one alone.
    const from = Date.now();
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const window = seen.filter((s) => s.at >= from && s.at < from + 1000);
    const shared = window.filter((s) => s.auth === 'Bearer sk-shared').length;
    const own = window.filter((s) => s.auth === 'Bearer sk-own').length;
    expect(own).toBeGreaterThanOrEqual(5);
    expect(Math.abs(shared - own)).toBeLessThanOrEqual(1);

    // The shared key refused: all three go down with the same reason, the other stays up.
    status.set('Bearer sk-shared', 401);
    await until(
      () =>
        ['m1', 'm2', 'm3'].every(
          (m) => stateOf(watcher.current(), m, `s${m[1]}`) === 'down: probe: HTTP 401',
        ),
      5000,
      'the three down',
    );
    expect(stateOf(watcher.current(), 'm1', 'own')).toBe('up: probe: HTTP 200');
  }, 20_000);
});
