import { type INestApplication } from '@nestjs/common';
import { createConsoleApp } from '../../apps/console/src/console.app.js';
import { createEdgeApp } from '../../apps/edge/src/edge.app.js';
import { createRouterApp } from '../../apps/router/src/router.app.js';
import { createWorkerApp } from '../../apps/worker/src/worker.app.js';
import { generateApiKey, hashApiKey, displayPrefix } from '#libs/auth';
import { type Env, type GatewayConfig, type GatewayConfigInput, parseConfig, readEnv } from '#libs/config';
import { findOrCreateUserByEmail, insertApiKey } from '#libs/db';
import { startMockProvider, type MockProvider } from '#libs/testing';
import { createTestDatabase, type TestDatabase } from './db.js';
import { dropRedisPrefix, TEST_REDIS_URL, uniqueRedisPrefix } from './redis.js';

export interface Gateway {
  readonly edgeUrl: string;
  readonly consoleUrl: string;
  readonly routerUrl: string;
  readonly mock: MockProvider;
  readonly db: TestDatabase;
  readonly env: Env;
  readonly config: GatewayConfig;
  createKey(opts?: {
    email?: string;
    group?: string;
  }): Promise<{ raw: string; id: string; hash: string; userId: string }>;
  close(): Promise<void>;
}

/** The default test config: both demo providers on the mock, two groups. */
export function testConfig(mockUrl: string): GatewayConfigInput {
  const model = (id: string) => ({
    id,
    owned_by: 'mock-provider',
    created: 1767225600,
    pricing: { input_per_million: 1, output_per_million: 2 },
  });
  return {
    router: { probe_interval_ms: 200, probe_timeout_ms: 500, down_after_failures: 2 },
    worker: { batch_max: 100, batch_wait_ms: 20, default_grant_credits: 10 },
    edge: { log_flush_interval_ms: 5 },
    providers: [
      {
        id: 'mock-openai',
        type: 'openai',
        base_url: `${mockUrl}/v1`,
        models: ['mock-gpt', { id: 'mock-gpt-renamed', upstream: 'upstream-gpt' }],
      },
    ],
    models: [model('mock-gpt'), model('mock-gpt-renamed'), model('mock-secret')],
    groups: { default: ['mock-gpt', 'mock-gpt-renamed'], other: ['mock-secret'] },
  };
}

/** Boots mock provider, router, worker, edge and console in this process, isolated by database and Redis prefix. */
export async function startGateway(
  label: string,
  configFor: (mockUrl: string) => GatewayConfigInput = testConfig,
): Promise<Gateway> {
  const mock = await startMockProvider({ port: 0 });
  const db = await createTestDatabase(label);
  const prefix = uniqueRedisPrefix(label);
  const config = parseConfig(configFor(mock.url));
  const env = readEnv({
    REDIS_URL: TEST_REDIS_URL,
    REDIS_PREFIX: prefix,
    DATABASE_URL: db.url,
    HOST: '127.0.0.1',
  });
  const apps: INestApplication[] = [];
  const listen = async (app: INestApplication): Promise<string> => {
    apps.push(app);
    await app.listen(0, '127.0.0.1');
    return (await app.getUrl()).replace('[::1]', '127.0.0.1');
  };
  const routerUrl = await listen(await createRouterApp(env, config));
  await listen(await createWorkerApp(env, config));
  const edgeUrl = await listen(await createEdgeApp(env, config));
  const consoleUrl = await listen(await createConsoleApp(env, config));

  return {
    edgeUrl,
    consoleUrl,
    routerUrl,
    mock,
    db,
    env,
    config,
    async createKey({ email = `user-${label}@example.com`, group = 'default' } = {}) {
      const { user } = await findOrCreateUserByEmail(db.db, email, 10_000_000_000);
      const raw = generateApiKey();
      const hash = hashApiKey(raw);
      const row = await insertApiKey(db.db, {
        user_id: user.id,
        name: 'e2e',
        key_hash: hash,
        display_prefix: displayPrefix(raw),
        group_name: group,
      });
      return { raw, id: row.id, hash, userId: user.id };
    },
    async close() {
      // Edge first, so its log buffer drains into the queue while the worker still runs.
      for (const app of apps.reverse()) await app.close();
      await mock.close();
      await db.drop();
      await dropRedisPrefix(prefix);
    },
  };
}

/** Polls until `fn` returns a value (not undefined), or fails after `timeoutMs`. */
export async function eventually<T>(
  fn: () => Promise<T | undefined>,
  timeoutMs = 5000,
  what = 'condition',
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await fn();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
