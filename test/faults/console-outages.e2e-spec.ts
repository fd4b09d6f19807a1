import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { type NestFastifyApplication } from '@nestjs/platform-fastify';
import { createConsoleApp } from '../../apps/console/src/console.app.js';
import { SessionStore } from '../../apps/console/src/session/session.store.js';
import { type GatewayConfig, readEnv } from '#libs/config';
import { parseConfig } from '#libs/gateway-config';
import { dropRedisPrefix, TEST_REDIS_URL, uniqueRedisPrefix } from '../support/redis.js';
import { ConsoleClient, type ConsoleResponse } from '../support/console-client.js';
import { createTestDatabase, type TestDatabase } from '../support/db.js';
import { testConfig } from '../support/gateway.js';
import { freePort, type PrivateRedis, startPrivateRedis } from '../support/private-servers.js';
import { type AppLogs, captureAppLogs } from '../e2e/telemetry-logs.js';
import { recordFigures } from './fault-stack.js';

/**
 * The console while one of its stores is down: a private redis-server stopped under a signed-in
 * session, and a console whose Postgres is a port nobody listens on (the shared servers are never
 * touched). Every answer is 503 `service_unavailable` with `retry-after`, in the console's shape
 * with a request id, logged as a warning (the outside failing), never a 500 logged as a bug.
 */
const ADMIN_EMAIL = 'outage-admin@example.com';
const ADMIN_PASSWORD = 'correct horse battery staple';
const ADMIN_TOKEN = 'console-outages-admin-token-0123456789';
const config: GatewayConfig = parseConfig(testConfig('http://127.0.0.1:1'));

let tdb: TestDatabase;
let redis: PrivateRedis;
let logs: AppLogs;
const apps: NestFastifyApplication[] = [];
const prefixes: string[] = [];

async function startConsole(redisUrl: string, databaseUrl: string): Promise<string> {
  const prefix = uniqueRedisPrefix('console-outage');
  prefixes.push(prefix);
  const env = readEnv({
    REDIS_URL: redisUrl,
    REDIS_PREFIX: prefix,
    DATABASE_URL: databaseUrl,
    CONSOLE_ADMIN_EMAIL: ADMIN_EMAIL,
    CONSOLE_ADMIN_PASSWORD: ADMIN_PASSWORD,
    CONSOLE_ADMIN_TOKEN: ADMIN_TOKEN,
  });
  const app = await createConsoleApp(env, config);
  apps.push(app);
  await app.listen(0, '127.0.0.1');
  return (await app.getUrl()).replace('[::1]', '127.0.0.1');
}

beforeAll(async () => {
  tdb = await createTestDatabase('console_outages');
  // With AOF, as in production: the session outlives the stop, so the same browser signs back in.
  redis = await startPrivateRedis({ aof: true });
}, 60_000);

afterAll(async () => {
  for (const app of apps) await app.close();
  await redis?.destroy();
  await tdb?.drop();
  for (const prefix of prefixes) await dropRedisPrefix(prefix, TEST_REDIS_URL);
}, 60_000);

function expectUnavailable(res: ConsoleResponse): void {
  expect({ status: res.status, body: res.body }).toEqual({
    status: 503,
    body: { error: { code: 'service_unavailable', message: expect.any(String) } },
  });
  expect(res.headers.get('retry-after')).toMatch(/^[1-9]\d*$/);
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  const id = res.headers.get('x-request-id');
  expect(id).toMatch(/^req_[0-9a-f]{32}$/);
  // Logged under its request id as the outside failing (a warning), not as a bug with a stack.
  const lines = logs.lines.filter((l) => l.request_id === id);
  expect(lines.map((l) => [l.level, l.code])).toEqual([['warn', 'service_unavailable']]);
}

/** The answer and how long it took. */
async function timed(call: () => Promise<ConsoleResponse>): Promise<[ConsoleResponse, number]> {
  const t0 = Date.now();
  const res = await call();
  return [res, Date.now() - t0];
}

describe('Redis down', () => {
  it('a signed-in route, sign-out and sign-in answer 503 with retry-after at once, and work again once Redis is back', async () => {
    const url = await startConsole(redis.url, tdb.url);
    logs = captureAppLogs();
    const browser = new ConsoleClient(url);
    await browser.signIn(ADMIN_EMAIL, ADMIN_PASSWORD);
    expect((await browser.get('/api/keys')).status).toBe(200);

    await redis.stop();
    const calls: Array<() => Promise<ConsoleResponse>> = [
      () => browser.get('/api/keys'),
      () => browser.get('/api/keys'),
      () => browser.get('/api/session'),
      () => browser.post('/api/auth/sign-out'),
      () =>
        new ConsoleClient(url).post('/api/auth/sign-in', { email: ADMIN_EMAIL, password: ADMIN_PASSWORD }),
    ];
    const took: number[] = [];
    for (const call of calls) {
      const [res, ms] = await timed(call);
      expectUnavailable(res);
      took.push(ms);
    }
    // Not ioredis's reconnect backoff (up to 5 s an attempt, three attempts a command): the
    // console's client fails commands at once after a failed reconnect, else within 2 s.
    expect(Math.max(...took)).toBeLessThan(5_000);

    await redis.start();
    const startedAt = Date.now();
    let res = await browser.get('/api/keys');
    while (res.status !== 200 && Date.now() - startedAt < 15_000) {
      await new Promise((r) => setTimeout(r, 100));
      res = await browser.get('/api/keys');
    }
    expect(res.status).toBe(200);
    recordFigures('console-redis-outage', {
      msPer503: took,
      msFromRedisBackTo200: Date.now() - startedAt,
    });
  }, 60_000);
});

describe('Postgres down', () => {
  let url: string;

  beforeAll(async () => {
    // Nobody listens there: every connection is refused, as while Postgres is stopped.
    url = await startConsole(TEST_REDIS_URL, `postgres://postgres@127.0.0.1:${await freePort()}/gateway`);
    logs = captureAppLogs();
  }, 30_000);

  it('sign-in answers 503 with retry-after', async () => {
    const res = await new ConsoleClient(url).post('/api/auth/sign-in', {
      email: ADMIN_EMAIL,
      password: ADMIN_PASSWORD,
    });
    expectUnavailable(res);
  });

  it('so do the admin routes and the public setup status', async () => {
    const admin = new ConsoleClient(url, ADMIN_TOKEN);
    expectUnavailable(await admin.get('/api/admin/users'));
    expectUnavailable(await admin.post('/api/admin/keys/00000000-0000-4000-8000-000000000000/revoke'));
    expectUnavailable(await new ConsoleClient(url).get('/api/setup/status'));
  });

  it('a signed-in session whose user row cannot be read: 503, and the session is kept', async () => {
    // A session as sign-in opened it before Postgres went away (sessions live in Redis).
    const { id } = await apps.at(-1)!.get(SessionStore).create('00000000-0000-4000-8000-000000000001');
    const browser = new ConsoleClient(url);
    browser.session = id;
    expectUnavailable(await browser.get('/api/keys'));
    expectUnavailable(await browser.get('/api/session'));
    expect(browser.session).toBe(id);
  });
});
