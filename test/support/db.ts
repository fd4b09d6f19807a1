import { createHash, randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { type Kysely, sql } from 'kysely';
import { Migrator } from 'kysely/migration';
import pg from 'pg';
import {
  createDb,
  type Database,
  ensureLogPartitions,
  findOrCreateUserByEmail,
  insertApiKey,
  listLogPartitions,
  logPartitionsAround,
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
  await maintenance((client) => client.query(`create database "${name}" template "${template.name}"`));
  if (template.partitionsFor !== utcMonth(new Date())) {
    const fixer = createDb(url, { poolSize: 1, applicationName: `test-${safeLabel}-partitions` });
    try {
      await currentPartitions(fixer);
    } finally {
      await fixer.destroy();
    }
  }
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

let templateReady: Promise<Template> | undefined;

/** Serialises building the template across jest workers (an advisory lock on the server). */
const TEMPLATE_LOCK = 7_240_516;
/**
 * Not `gwtest_template_`, the day-named templates of earlier versions of this file: a run of one
 * (another checkout on the same server) drops every such template but its day's.
 */
const TEMPLATE_PREFIX = 'gwtemplate_';
/** Another migration set's template unused this long belongs to no running test run: it goes. */
const STALE_TEMPLATE_MS = 2 * 86_400_000;

interface Template {
  readonly name: string;
  /** UTC month (`2026-11`) whose request_logs partitions the migrations made in it. */
  readonly partitionsFor: string;
}

/** What a template records about itself, as its database comment. */
interface TemplateNote {
  readonly partitionsFor: string;
  readonly usedAt: string;
}

const utcMonth = (at: Date): string => at.toISOString().slice(0, 7);

/**
 * The database migrated to the latest schema, built once per set of migrations (named by a hash
 * of the migration files, nothing else: a run, however long, never rebuilds it midway, as it did
 * when the name held the UTC day and a run crossed midnight) by whichever worker gets there first
 * while the others wait on the lock. Nothing connects to it after it is built, as a template must
 * be unused when it is copied. The one thing in it that depends on the date, the monthly
 * request_logs partitions 0001 creates around `now`, is brought up to date in each copy
 * (`currentPartitions`) when the template was built in another month.
 */
async function migratedTemplate(): Promise<Template> {
  const dir = new URL('../../libs/db/src/migrations/', import.meta.url);
  const hash = createHash('sha256');
  for (const file of readdirSync(dir).sort()) hash.update(file).update(readFileSync(new URL(file, dir)));
  const name = `${TEMPLATE_PREFIX}${hash.digest('hex').slice(0, 12)}`;
  return maintenance(async (client) => {
    await client.query('select pg_advisory_lock($1)', [TEMPLATE_LOCK]);
    try {
      const templates = await client.query<{ datname: string; note: string | null }>(
        `select datname, shobj_description(oid, 'pg_database') as note from pg_database
          where datname like 'gwtemplate\\_%' or datname like 'gwtest\\_template\\_%'`,
      );
      const now = new Date();
      let partitionsFor: string | undefined;
      for (const { datname, note } of templates.rows) {
        const parsed = parseNote(note);
        if (datname === name && parsed) {
          partitionsFor = parsed.partitionsFor;
          // Marked used (at most hourly), so that no other checkout's run drops it as stale.
          if (now.getTime() - Date.parse(parsed.usedAt) > 3_600_000)
            await noteTemplate(client, name, { partitionsFor, usedAt: now.toISOString() });
          continue;
        }
        // Every other one is either being built by nobody (this worker holds the lock: a
        // `_building` left by a killed worker), another migration set's not used for days, or one
        // named by the day as this file used to (which a run of that code rebuilds daily anyway).
        const legacyDay = /^gwtest_template_(\d{8})_/.exec(datname)?.[1];
        const stale =
          datname === name || // without its note: not built by this code, built again
          datname.endsWith('_building') ||
          (parsed
            ? now.getTime() - Date.parse(parsed.usedAt) > STALE_TEMPLATE_MS
            : legacyDay !== undefined && legacyDay < now.toISOString().slice(0, 10).replaceAll('-', ''));
        if (stale) await client.query(`drop database if exists "${datname}" with (force)`);
      }
      if (partitionsFor !== undefined) return { name, partitionsFor };
      const building = `${name}_building`;
      await client.query(`drop database if exists "${building}" with (force)`);
      await client.query(`create database "${building}"`);
      const db = createDb(testDatabaseUrl(building), { poolSize: 1, applicationName: 'test-template' });
      const builtAt = new Date();
      try {
        await migrateToLatest(db);
      } finally {
        await db.destroy();
      }
      const built = { partitionsFor: utcMonth(builtAt), usedAt: builtAt.toISOString() };
      await noteTemplate(client, building, built);
      // Renamed only once whole: a worker killed mid-build leaves `_building`, never a half template.
      await client.query(`alter database "${building}" rename to "${name}"`);
      return { name, partitionsFor: built.partitionsFor };
    } finally {
      await client.query('select pg_advisory_unlock($1)', [TEMPLATE_LOCK]);
    }
  });
}

function parseNote(note: string | null): TemplateNote | null {
  try {
    const parsed = JSON.parse(note ?? '') as Partial<TemplateNote>;
    return typeof parsed.partitionsFor === 'string' && typeof parsed.usedAt === 'string'
      ? (parsed as TemplateNote)
      : null;
  } catch {
    return null;
  }
}

async function noteTemplate(client: pg.Client, name: string, note: TemplateNote): Promise<void> {
  await client.query(`comment on database "${name}" is ${client.escapeLiteral(JSON.stringify(note))}`);
}

/**
 * Gives a copy of a template built in another month the request_logs partitions a migration run
 * now would make (this month and the next, as 0001 does), and no others, so every copy looks
 * freshly migrated whichever month its template dates from.
 */
async function currentPartitions(db: Kysely<Database>): Promise<void> {
  const now = new Date();
  await ensureLogPartitions(db, now, 1);
  const wanted = new Set(logPartitionsAround(now, 1).map((p) => p.name));
  for (const p of await listLogPartitions(db))
    if (!wanted.has(p.name)) await sql`drop table ${sql.table(p.name)}`.execute(db);
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
