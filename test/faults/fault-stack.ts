import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql, type Kysely } from 'kysely';
import OpenAI from 'openai';
import { displayPrefix, generateApiKey, hashApiKey } from '#libs/auth';
import { type Env, type GatewayConfig, type GatewayConfigInput, readEnv } from '#libs/config';
import { parseConfig } from '#libs/gateway-config';
import {
  createDb,
  type Database,
  ensureDatabase,
  findOrCreateUserByEmail,
  insertApiKey,
  migrateToLatest,
} from '#libs/db';
import { type MockProvider, startMockProvider } from '#libs/testing';
import { platformEnv } from '#libs/providers';
import { type AppProcess, spawnApp, type SpawnOptions } from '../support/app-process.js';
import { testConfig } from '../support/gateway.js';
import { dropRedisPrefix, uniqueRedisPrefix } from '../support/redis.js';

/** What a fault test runs against: databases and Redis it chose, apps as real OS processes. */
export interface FaultStack {
  readonly env: Env;
  readonly config: GatewayConfig;
  readonly mock: MockProvider;
  /** A pool on the gateway's database, for assertions (it reconnects after an outage). */
  readonly db: Kysely<Database>;
  readonly spoolDir: string;
  readonly apps: Map<'edge' | 'router' | 'worker', AppProcess>;
  start(app: 'edge' | 'router' | 'worker', options?: SpawnOptions): Promise<AppProcess>;
  createKey(grantNanos?: number): Promise<{ raw: string; userId: string; keyId: string }>;
  close(): Promise<void>;
}

export interface FaultStackOptions {
  readonly label: string;
  readonly databaseUrl: string;
  readonly redisUrl: string;
  readonly config?: (base: GatewayConfigInput) => GatewayConfigInput;
}

export async function startFaultStack(opts: FaultStackOptions): Promise<FaultStack> {
  const mock = await startMockProvider({ port: 0 });
  await ensureDatabase(opts.databaseUrl);
  const db = createDb(opts.databaseUrl, { poolSize: 4, applicationName: `fault-${opts.label}` });
  await migrateToLatest(db);
  const spoolDir = mkdtempSync(join(tmpdir(), `gw-${opts.label}-spool-`));
  const base = testConfig(mock.url);
  const config = parseConfig(
    (opts.config ?? ((c) => c))({ ...base, edge: { ...base.edge, log_spool_dir: spoolDir } }),
  );
  const prefix = uniqueRedisPrefix(opts.label);
  const env = readEnv(
    { REDIS_URL: opts.redisUrl, REDIS_PREFIX: prefix, DATABASE_URL: opts.databaseUrl },
    platformEnv(),
  );
  const apps = new Map<'edge' | 'router' | 'worker', AppProcess>();
  return {
    env,
    config,
    mock,
    db,
    spoolDir,
    apps,
    async start(app, options) {
      const proc = await spawnApp(app, env, config, options);
      apps.set(app, proc);
      return proc;
    },
    async createKey(grantNanos = 1_000_000_000_000) {
      const email = `fault-${Math.random().toString(36).slice(2)}@example.com`;
      const { user } = await findOrCreateUserByEmail(db, email, grantNanos);
      const raw = generateApiKey();
      const row = await insertApiKey(db, {
        user_id: user.id,
        name: 'fault',
        key_hash: hashApiKey(raw),
        display_prefix: displayPrefix(raw),
        group_name: 'default',
      });
      return { raw, userId: user.id, keyId: row.id };
    },
    async close() {
      // Edge first: its last logs reach the queue while the worker still runs.
      for (const name of ['edge', 'router', 'worker'] as const) await apps.get(name)?.stop();
      await mock.close();
      await db.destroy();
      await dropRedisPrefix(prefix, opts.redisUrl).catch(() => undefined);
      rmSync(spoolDir, { recursive: true, force: true });
    },
  };
}

export interface Outcome {
  /** When the answer (or the error) arrived, and how long the request took. */
  readonly at: number;
  readonly ms: number;
  readonly status: number;
  readonly requestId: string | null;
}

/** Between two requests of one client: steady traffic that leaves CPU to the other tests CI runs. */
const PAUSE_MS = 10;

/**
 * Closed-loop traffic: `concurrency` clients each sending chat completions one after the other
 * (official SDK, no retries) until `stop()`. Every answer is recorded with its status and request id.
 */
export function traffic(
  edgeUrl: string,
  apiKey: string,
  concurrency = 4,
): { outcomes: Outcome[]; stop(): Promise<void> } {
  const client = new OpenAI({ baseURL: `${edgeUrl}/v1`, apiKey, maxRetries: 0, timeout: 10_000 });
  const outcomes: Outcome[] = [];
  let running = true;
  const loop = async (): Promise<void> => {
    while (running) {
      const started = Date.now();
      try {
        const { response } = await client.chat.completions
          .create({ model: 'mock-gpt', messages: [{ role: 'user', content: 'hi' }] })
          .withResponse();
        const at = Date.now();
        outcomes.push({
          at,
          ms: at - started,
          status: response.status,
          requestId: response.headers.get('x-request-id'),
        });
      } catch (err) {
        const status = err instanceof OpenAI.APIError ? (err.status ?? 0) : 0;
        const requestId = err instanceof OpenAI.APIError ? (err.headers?.get('x-request-id') ?? null) : null;
        const at = Date.now();
        outcomes.push({ at, ms: at - started, status, requestId });
      }
      await new Promise((r) => setTimeout(r, PAUSE_MS));
    }
  };
  const loops = Array.from({ length: concurrency }, loop);
  return {
    outcomes,
    async stop() {
      running = false;
      await Promise.all(loops);
    },
  };
}

/** How many times each request id appears in request_logs (ids given), and the charges' totals. */
export async function storedCounts(
  db: Kysely<Database>,
  ids: readonly string[],
): Promise<{ logs: Map<string, number>; charges: Map<string, number> }> {
  const logs = new Map<string, number>();
  const charges = new Map<string, number>();
  if (ids.length === 0) return { logs, charges };
  const logRows = await sql<{ id: string; n: string }>`
    select request_id as id, count(*) as n from request_logs where request_id = any(${ids}) group by request_id`.execute(
    db,
  );
  for (const r of logRows.rows) logs.set(r.id, Number(r.n));
  const chargeRows = await sql<{ id: string; n: string }>`
    select request_id as id, count(*) as n from charges where request_id = any(${ids}) group by request_id`.execute(
    db,
  );
  for (const r of chargeRows.rows) charges.set(r.id, Number(r.n));
  return { logs, charges };
}

/** Polls until `check` holds; returns the time it took. */
export async function waitUntil(
  what: string,
  check: () => Promise<boolean>,
  timeoutMs: number,
): Promise<number> {
  const started = Date.now();
  for (;;) {
    if (await check().catch(() => false)) return Date.now() - started;
    if (Date.now() - started > timeoutMs) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Figures a fault test measured: printed, and written to test-results/faults/<name>.json for the docs. */
export function recordFigures(name: string, figures: Record<string, unknown>): void {
  const dir = join(process.cwd(), 'test-results', 'faults');
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, `${name}.json`),
    JSON.stringify({ at: new Date().toISOString(), ...figures }, null, 2),
  );
  console.log(`FAULT FIGURES ${name}: ${JSON.stringify(figures)}`);
}
