import { type INestApplication } from '@nestjs/common';
import { createConsoleApp } from '../../apps/console/src/console.app.js';
import { createEdgeApp } from '../../apps/edge/src/edge.app.js';
import { createRouterApp } from '../../apps/router/src/router.app.js';
import { type RouterOptions } from '../../apps/router/src/tokens.js';
import { createWorkerApp } from '../../apps/worker/src/worker.app.js';
import { generateApiKey, hashApiKey, displayPrefix } from '#libs/auth';
import {
  type Env,
  type GatewayConfig,
  type GatewayConfigInput,
  readEnv,
  type RoutingStrategy,
} from '#libs/config';
import { parseConfig } from '#libs/gateway-config';
import { findOrCreateUserByEmail, insertApiKey, type RequestLogsTable } from '#libs/db';
import { type Selectable } from 'kysely';
import { startMockProvider, type MockProvider, type MockProviderOptions } from '#libs/testing';
import { platformEnv } from '#libs/providers';
import { createTestDatabase, type TestDatabase } from './db.js';
import { dropRedisPrefix, TEST_REDIS_URL, uniqueRedisPrefix } from './redis.js';

export interface Gateway {
  /** The first edge; `edgeUrls` lists every edge (same Redis prefix and database). */
  readonly edgeUrl: string;
  readonly edgeUrls: readonly string[];
  readonly consoleUrl: string;
  readonly routerUrl: string;
  /** The worker's internal port (health, on-demand quota reconciliation). */
  readonly workerUrl: string;
  /** The first mock; `mocks` lists every one, in the order their URLs reach `configFor`. */
  readonly mock: MockProvider;
  readonly mocks: readonly MockProvider[];
  readonly db: TestDatabase;
  readonly env: Env;
  readonly config: GatewayConfig;
  /** The request's row in request_logs, once the worker has written it (fails after 5 s). */
  logRow(requestId: string): Promise<Selectable<RequestLogsTable>>;
  createKey(opts?: {
    email?: string;
    group?: string;
  }): Promise<{ raw: string; id: string; hash: string; userId: string }>;
  /** Closes the router app (edges keep their last view). */
  stopRouter(): Promise<void>;
  close(): Promise<void>;
}

export interface GatewayOptions {
  /** Mock providers to start (default 1). */
  readonly mocks?: number;
  /** Edge apps to start, sharing Redis and Postgres (default 1). */
  readonly edges?: number;
  readonly router?: Partial<RouterOptions>;
  /** Another Redis than the shared test server (a private Redis Cluster, say). */
  readonly redis?: { readonly url: string; readonly cluster: boolean };
  /** The edges' clock (quota windows, request starts): budget tests cross midnight with it. */
  readonly clock?: () => number;
  /** Environment variables the apps see besides the test's own (provider keys, identity settings). */
  readonly env?: Readonly<Record<string, string>>;
  /** How the mock providers start (their behaviour before any app probes them). */
  readonly mock?: MockProviderOptions;
}

/** A model of the mock provider, priced 1 / 2 credits per million tokens in / out. */
export const testModel = (id: string) => ({
  id,
  owned_by: 'mock-provider',
  created: 1767225600,
  pricing: { input_per_million: 1, output_per_million: 2 },
});

/** Router, worker and edge settings that keep tests fast: probes every 200 ms, logs every 5 ms. */
export const FAST_TEST_SETTINGS = {
  router: { probe_interval_ms: 200, probe_timeout_ms: 500, down_after_failures: 2 },
  worker: { batch_max: 100, batch_wait_ms: 20, default_grant_credits: 10 },
  edge: { log_flush_interval_ms: 5 },
} as const;

/** The default test config: both demo providers on the mock, two groups. */
export function testConfig(mockUrl: string): GatewayConfigInput {
  return {
    ...FAST_TEST_SETTINGS,
    providers: [
      {
        id: 'mock-openai',
        type: 'openai',
        base_url: `${mockUrl}/v1`,
        models: ['mock-gpt', { id: 'mock-gpt-renamed', upstream: 'upstream-gpt' }],
      },
    ],
    models: [testModel('mock-gpt'), testModel('mock-gpt-renamed'), testModel('mock-secret')],
    groups: { default: ['mock-gpt', 'mock-gpt-renamed'], other: ['mock-secret'] },
  };
}

/**
 * `testConfig` plus an Anthropic provider on the same mock (native /v1/messages) serving
 * `anthropicModels` (by default `mock-claude`), each a model of group default.
 */
export function testConfigWithAnthropic(
  mockUrl: string,
  anthropicModels: ReadonlyArray<string | { readonly id: string; readonly upstream: string }> = [
    'mock-claude',
  ],
): GatewayConfigInput {
  const base = testConfig(mockUrl);
  const ids = anthropicModels.map((m) => (typeof m === 'string' ? m : m.id));
  return {
    ...base,
    providers: [
      ...base.providers,
      {
        id: 'mock-anthropic',
        type: 'anthropic',
        base_url: mockUrl,
        probe_path: '/v1/models',
        models: [...anthropicModels],
      },
    ],
    models: [...base.models, ...ids.map((id) => ({ ...base.models[0]!, id }))],
    groups: { ...base.groups, default: [...(base.groups.default as string[]), ...ids] },
  };
}

export interface RoutingTestModel {
  readonly id: string;
  /** Indices into the mock URLs: each served provider is `p<i>` on mock i. */
  readonly providers: readonly number[];
  readonly strategy?: RoutingStrategy;
}

export interface RoutingTestOptions {
  readonly models: readonly RoutingTestModel[];
  readonly limits?: Readonly<Record<number, { max_concurrency?: number; rpm?: number }>>;
  readonly routing?: GatewayConfigInput['routing'];
}

/**
 * A config for routing tests: provider `p<i>` on mock i, every provider at the same priority and
 * weight, short timeouts and breakers so faults show within seconds.
 */
export function routingTestConfig(mockUrls: readonly string[], opts: RoutingTestOptions): GatewayConfigInput {
  const served = (i: number) => opts.models.filter((m) => m.providers.includes(i)).map((m) => m.id);
  return {
    router: {
      probe_interval_ms: 200,
      probe_timeout_ms: 500,
      down_after_failures: 2,
      breaker: { consecutive_failures: 3, cooldown_ms: 1_000, half_open_trials: 2, min_samples: 10 },
    },
    worker: { batch_max: 100, batch_wait_ms: 20, default_grant_credits: 10 },
    edge: { log_flush_interval_ms: 5 },
    routing: {
      first_byte_timeout_ms: 300,
      sample_flush_interval_ms: 50,
      local_breaker_failures: 2,
      local_breaker_cooldown_ms: 1_000,
      half_open_trial_fraction: 0.2,
      stale_after_ms: 1_000,
      provider_header: true,
      ...opts.routing,
    },
    providers: mockUrls.map((url, i) => ({
      id: `p${i}`,
      type: 'openai' as const,
      base_url: `${url}/v1`,
      models: served(i),
      ...(opts.limits?.[i] ? { limits: opts.limits[i] } : {}),
    })),
    models: opts.models.map((m) => ({
      id: m.id,
      strategy: m.strategy ?? 'priority',
      owned_by: 'mock-provider',
      created: 1767225600,
      pricing: { input_per_million: 1, output_per_million: 2 },
    })),
    groups: { default: opts.models.map((m) => m.id) },
  };
}

/** Model `m` on the OpenAI mocks `mProviders`; model `c` on the first mock speaking Anthropic (`pa`). */
export function routingTestConfigWithAnthropic(
  mockUrls: readonly string[],
  mProviders: readonly number[],
): GatewayConfigInput {
  const base = routingTestConfig(mockUrls, { models: [{ id: 'm', providers: mProviders }] });
  return {
    ...base,
    providers: [
      ...base.providers,
      { id: 'pa', type: 'anthropic', base_url: mockUrls[0]!, probe_path: '/v1/models', models: ['c'] },
    ],
    models: [...base.models, { ...base.models[0]!, id: 'c' }],
    groups: { default: ['m', 'c'] },
  };
}

/** Boots mock provider, router, worker, edge and console in this process, isolated by database and Redis prefix. */
export async function startGateway(
  label: string,
  configFor: (mockUrl: string, mockUrls: readonly string[]) => GatewayConfigInput = testConfig,
  options: GatewayOptions = {},
): Promise<Gateway> {
  const mocks = await Promise.all(
    Array.from({ length: options.mocks ?? 1 }, () => startMockProvider({ ...options.mock, port: 0 })),
  );
  const mock = mocks[0]!;
  const db = await createTestDatabase(label);
  const prefix = uniqueRedisPrefix(label);
  const config = parseConfig(
    configFor(
      mock.url,
      mocks.map((m) => m.url),
    ),
  );
  const env = readEnv(
    {
      ...options.env,
      REDIS_URL: options.redis?.url ?? TEST_REDIS_URL,
      REDIS_CLUSTER: String(options.redis?.cluster ?? false),
      REDIS_PREFIX: prefix,
      DATABASE_URL: db.url,
      HOST: '127.0.0.1',
    },
    platformEnv(),
  );
  // The apps boot side by side (each mostly waits on Postgres and Redis); they close in reverse
  // of this order (console, edges, worker, router), so an edge's log buffer drains into the queue
  // while the worker still runs.
  const booted = await Promise.allSettled([
    createRouterApp(env, config, options.router),
    createWorkerApp(env, config),
    ...Array.from({ length: options.edges ?? 1 }, () => createEdgeApp(env, config, options.clock)),
    createConsoleApp(env, config),
  ]);
  const apps: INestApplication[] = booted.flatMap((b) => (b.status === 'fulfilled' ? [b.value] : []));
  const failed = booted.find((b) => b.status === 'rejected');
  if (failed !== undefined) {
    await Promise.allSettled(apps.map((app) => app.close()));
    throw failed.reason;
  }
  const urls = await Promise.all(
    apps.map(async (app) => {
      await app.listen(0, '127.0.0.1');
      return (await app.getUrl()).replace('[::1]', '127.0.0.1');
    }),
  );
  const router = apps[0]!;
  const [routerUrl, workerUrl] = [urls[0]!, urls[1]!];
  const edgeUrls = urls.slice(2, -1);
  const edgeUrl = edgeUrls[0]!;
  const consoleUrl = urls.at(-1)!;

  return {
    edgeUrl,
    edgeUrls,
    consoleUrl,
    routerUrl,
    workerUrl,
    mock,
    mocks,
    db,
    env,
    config,
    logRow(requestId: string) {
      return eventually(
        () =>
          db.db.selectFrom('request_logs').selectAll().where('request_id', '=', requestId).executeTakeFirst(),
        5000,
        `log row ${requestId}`,
      );
    },
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
    async stopRouter() {
      const i = apps.indexOf(router);
      if (i < 0) return;
      apps.splice(i, 1);
      await router.close();
    },
    async close() {
      // Edge first, so its log buffer drains into the queue while the worker still runs.
      for (const app of apps.reverse()) await app.close();
      await Promise.all(mocks.map((m) => m.close()));
      await db.drop();
      await dropRedisPrefix(prefix, env.redis);
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
