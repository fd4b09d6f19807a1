import { randomBytes } from 'node:crypto';
import { type Kysely } from 'kysely';
import pg from 'pg';
import {
  createDb,
  type Database,
  ensureDatabase,
  findOrCreateUserByEmail,
  insertApiKey,
  maintenanceUrlOf,
  migrateToLatest,
} from '#libs/db';
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

/** Creates a uniquely named, fully migrated database for one test file. */
export async function createTestDatabase(label = 't'): Promise<TestDatabase> {
  const safeLabel = label
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .slice(0, 30);
  const name = `gwtest_${safeLabel}_${randomBytes(5).toString('hex')}`;
  const url = testDatabaseUrl(name);
  await ensureDatabase(url);
  const db = createDb(url, { poolSize: 5, applicationName: `test-${safeLabel}` });
  await migrateToLatest(db);
  return {
    name,
    url,
    db,
    async drop() {
      await db.destroy();
      await dropTestDatabase(url, name);
    },
  };
}

async function dropTestDatabase(url: string, name: string): Promise<void> {
  const client = new pg.Client({ connectionString: maintenanceUrlOf(url) });
  await client.connect();
  try {
    await client.query(`drop database if exists "${name}" with (force)`);
  } finally {
    await client.end();
  }
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
