import { createHash, randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { type Kysely } from 'kysely';
import { Migrator } from 'kysely/migration';
import pg from 'pg';
import {
  createDb,
  type Database,
  findOrCreateUserByEmail,
  insertApiKey,
  maintenanceUrlOf,
  migrateToLatest,
} from '#libs/db';
import { MIGRATIONS } from '../../libs/db/src/migrations/index.js';
import { type RequestLogJob } from '#libs/queue';

/** Server the integration tests use; each test file gets its own database on it. */
export const TEST_DATABASE_SERVER_URL =
  process.env.TEST_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test';

export interface TestDatabase {
  readonly name: string;
  readonly url: string;
  readonly db: Kysely<Database>;
  /** Closes `db` and drops the database (forcing out any other connection still open to it). */
  drop(): Promise<void>;
}

function testDatabaseUrl(name: string): string {
  const u = new URL(TEST_DATABASE_SERVER_URL);
  u.pathname = `/${name}`;
  return u.toString();
}

/**
 * Creates a uniquely named, fully migrated database for one test file: a copy of the template
 * (`CREATE DATABASE ... TEMPLATE`), which is much faster than running every migration again.
 */
export async function createTestDatabase(label = 't'): Promise<TestDatabase> {
  const safeLabel = label
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .slice(0, 30);
  const name = `gwtest_${safeLabel}_${randomBytes(5).toString('hex')}`;
  const url = testDatabaseUrl(name);
  const template = await (templateReady ??= migratedTemplate());
  await maintenance((client) => client.query(`create database "${name}" template "${template}"`));
  const db = createDb(url, { poolSize: 5, applicationName: `test-${safeLabel}` });
  return {
    name,
    url,
    db,
    async drop() {
      await db.destroy();
      await dropTestDatabase(name);
    },
  };
}

/**
 * An empty database migrated with the migrations named below `prefix` only (`'0017'`: up to
 * 0016), for a test of one migration on the data an older schema held: seed it, then
 * `migrateBelow` a later prefix (or `migrateToLatest`).
 */
export async function createDatabaseBelow(
  label: string,
  prefix: string,
): Promise<TestDatabase & { migrateBelow(next: string): Promise<void> }> {
  const name = `gwtest_${label}_${randomBytes(5).toString('hex')}`;
  await maintenance((client) => client.query(`create database "${name}"`));
  const db = createDb(testDatabaseUrl(name), { poolSize: 2, applicationName: `test-${label}` });
  const migrateBelow = async (next: string): Promise<void> => {
    const below = Object.fromEntries(Object.entries(MIGRATIONS).filter(([n]) => n < next));
    const { error } = await new Migrator({
      db,
      provider: { getMigrations: async () => below },
    }).migrateToLatest();
    if (error) throw error;
  };
  await migrateBelow(prefix);
  return {
    name,
    url: testDatabaseUrl(name),
    db,
    migrateBelow,
    async drop() {
      await db.destroy();
      await dropTestDatabase(name);
    },
  };
}

let templateReady: Promise<string> | undefined;

/** Serialises building the template across jest workers (an advisory lock on the server). */
const TEMPLATE_LOCK = 7_240_516;

/**
 * The name of a database migrated to the latest schema, built once per set of migrations and UTC
 * day (migrations may create time partitions) by whichever worker gets there first; earlier days'
 * templates are dropped then. Nothing connects to it after it is built, as a template must be
 * unused when it is copied.
 */
async function migratedTemplate(): Promise<string> {
  const dir = new URL('../../libs/db/src/migrations/', import.meta.url);
  const hash = createHash('sha256');
  for (const file of readdirSync(dir).sort()) hash.update(file).update(readFileSync(new URL(file, dir)));
  const day = new Date().toISOString().slice(0, 10).replaceAll('-', '');
  const name = `gwtest_template_${day}_${hash.digest('hex').slice(0, 12)}`;
  await maintenance(async (client) => {
    await client.query('select pg_advisory_lock($1)', [TEMPLATE_LOCK]);
    try {
      const found = await client.query('select 1 from pg_database where datname = $1', [name]);
      if (found.rowCount) return;
      // Earlier days' templates go; today's of other migration sets may still be in use by a run.
      const stale = await client.query<{ datname: string }>(
        "select datname from pg_database where datname like 'gwtest\\_template\\_%' and datname not like $1",
        [`gwtest\\_template\\_${day}\\_%`],
      );
      for (const { datname } of stale.rows) await client.query(`drop database "${datname}" with (force)`);
      const building = `${name}_building`;
      await client.query(`drop database if exists "${building}" with (force)`);
      await client.query(`create database "${building}"`);
      const db = createDb(testDatabaseUrl(building), { poolSize: 1, applicationName: 'test-template' });
      try {
        await migrateToLatest(db);
      } finally {
        await db.destroy();
      }
      // Renamed only once whole: a worker killed mid-build leaves `_building`, never a half template.
      await client.query(`alter database "${building}" rename to "${name}"`);
    } finally {
      await client.query('select pg_advisory_unlock($1)', [TEMPLATE_LOCK]);
    }
  });
  return name;
}

async function maintenance<T>(use: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: maintenanceUrlOf(TEST_DATABASE_SERVER_URL) });
  await client.connect();
  try {
    return await use(client);
  } finally {
    await client.end();
  }
}

function dropTestDatabase(name: string): Promise<unknown> {
  return maintenance((client) => client.query(`drop database if exists "${name}" with (force)`));
}

/** A valid request log job; override what the test is about. */
export function requestLogJob(overrides: Partial<RequestLogJob> = {}): RequestLogJob {
  return {
    v: 1,
    requestId: `req_${randomBytes(8).toString('hex')}`,
    startedAt: new Date().toISOString(),
    keyId: null,
    userId: null,
    group: 'default',
    endpoint: '/v1/chat/completions',
    model: 'mock-gpt',
    requestedModel: 'mock-gpt',
    fallbackFrom: null,
    providerId: 'demo-openai',
    upstreamModel: 'mock-gpt',
    stream: false,
    status: 200,
    errorCode: null,
    latencyMs: 12.4,
    ttftMs: null,
    usage: {
      inputTokens: 10,
      outputTokens: 20,
      cachedTokens: 0,
      cacheWrite5mTokens: 0,
      cacheWrite1hTokens: 0,
      reasoningTokens: 0,
    },
    usageEstimated: false,
    adjustments: [],
    costNanos: 0,
    prices: null,
    attempts: [{ providerId: 'demo-openai', status: 200, outcome: 'ok', latencyMs: 12 }],
    ...overrides,
  };
}

/** A user with a balance and one active key in group `default`. */
export async function seedUserWithKey(
  db: Kysely<Database>,
  opts: { email?: string; grantNanos?: bigint; group?: string } = {},
): Promise<{ userId: string; keyId: string; keyHash: string }> {
  const email = opts.email ?? `u-${randomBytes(4).toString('hex')}@example.com`;
  const { user } = await findOrCreateUserByEmail(db, email, opts.grantNanos ?? 0n);
  const keyHash = randomBytes(32).toString('hex');
  const key = await insertApiKey(db, {
    user_id: user.id,
    name: 'test',
    key_hash: keyHash,
    display_prefix: 'sk-test...abcd',
    group_name: opts.group ?? 'default',
  });
  return { userId: user.id, keyId: key.id, keyHash };
}
