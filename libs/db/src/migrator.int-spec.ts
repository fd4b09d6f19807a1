import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { type Kysely, sql } from 'kysely';
import pg from 'pg';
import { TEST_DATABASE_SERVER_URL } from '../../../test/support/db.js';
import { createDb, ensureDatabase, maintenanceUrlOf } from './connection.js';
import { type Database } from './database.js';
import { logPartitionsAround } from './log-partitions.js';
import { knownMigrations, migrateToLatest } from './migrator.js';

const name = `gwtest_migrate_${randomBytes(5).toString('hex')}`;
const url = Object.assign(new URL(TEST_DATABASE_SERVER_URL), { pathname: `/${name}` }).toString();
let db: Kysely<Database>;

beforeAll(async () => {
  db = createDb(url, { poolSize: 2 });
});

afterAll(async () => {
  await db.destroy();
  const admin = new pg.Client({ connectionString: maintenanceUrlOf(url) });
  await admin.connect();
  await admin.query(`drop database if exists "${name}" with (force)`);
  await admin.end();
});

async function tables(): Promise<string[]> {
  const { rows } = await sql<{ name: string }>`
    select tablename as name from pg_tables where schemaname = 'public' order by tablename`.execute(db);
  return rows.map((r) => r.name);
}

describe('migrations on a fresh database', () => {
  it('creates the database named in the URL once', async () => {
    expect(await ensureDatabase(url)).toBe(true);
    expect(await ensureDatabase(url)).toBe(false);
  });

  it('applies every migration, then nothing on a re-run', async () => {
    expect(await migrateToLatest(db)).toEqual(knownMigrations());
    expect(await migrateToLatest(db)).toEqual([]);
  });

  it('leaves the tables, the default partition and this and next month partitions', async () => {
    const expected = [
      'admin_tokens',
      'api_keys',
      'audit_events',
      'budgets',
      'charge_daily_totals',
      'charges',
      'config_secrets',
      'config_versions',
      'key_invalidations',
      'quota_balances',
      'quota_grants',
      'request_logs',
      'request_logs_default',
      'team_balances',
      'team_grants',
      'team_members',
      'teams',
      'usage_hourly',
      'users',
    ];
    for (const p of logPartitionsAround(new Date(), 1)) expected.push(p.name);
    const found = await tables();
    expect(found.filter((t) => !t.startsWith('kysely_'))).toEqual(expected.sort());
  });

  it('declares request_logs as range partitioned on started_at', async () => {
    const { rows } = await sql<{ def: string }>`
      select pg_get_partkeydef('request_logs'::regclass) as def`.execute(db);
    expect(rows[0]?.def).toBe('RANGE (started_at)');
  });
});
