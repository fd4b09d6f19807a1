import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { hashApiKey, isWellFormedApiKey } from '#libs/auth';
import { parseConfig } from '#libs/gateway-config';
import { createDb, ensureDatabase, findUserByEmail, getQuotaBalance, maintenanceUrlOf } from '#libs/db';
import { createTestDatabase, TEST_DATABASE_SERVER_URL, type TestDatabase } from '../test/support/db.js';
import { createKeyCommand, type KeyCreateDeps } from './key-create.command.js';

const config = parseConfig({
  worker: { default_grant_credits: 2.5 },
  providers: [{ id: 'p', type: 'openai', base_url: 'http://127.0.0.1:9/v1', models: ['m'] }],
  models: [
    { id: 'm', owned_by: 'test', created: 0, pricing: { input_per_million: 1, output_per_million: 1 } },
  ],
  groups: { default: ['m'], team: ['m'] },
});
const NOW = new Date('2026-03-01T12:00:00.000Z');

let t: TestDatabase;
beforeAll(async () => {
  t = await createTestDatabase('keycreate');
});
afterAll(async () => {
  await t.drop();
});

async function run(argv: string[], db = t.db) {
  const out: string[] = [];
  const err: string[] = [];
  const deps: KeyCreateDeps = {
    db,
    config,
    out: (l) => out.push(l),
    err: (l) => err.push(l),
    now: () => NOW,
  };
  const code = await createKeyCommand(argv, deps);
  return { code, out, err, raw: out.find((l) => l.startsWith('sk-')) };
}

describe('key:create', () => {
  it('creates the user with the configured grant and a key it prints once, storing only its hash', async () => {
    const { code, out, raw } = await run([
      '--email',
      'Dev@Example.com',
      '--group',
      'team',
      '--name',
      'laptop',
      '--expires-days',
      '30',
    ]);
    expect(code).toBe(0);
    expect(raw && isWellFormedApiKey(raw)).toBe(true);
    expect(out.at(-1)).toMatch(/will not be shown again/);
    const user = await findUserByEmail(t.db, 'dev@example.com');
    expect(await getQuotaBalance(t.db, user!.id)).toMatchObject({ balance_nanos: '2500000000' });
    const key = await t.db
      .selectFrom('api_keys')
      .selectAll()
      .where('user_id', '=', user!.id)
      .executeTakeFirstOrThrow();
    expect(key).toMatchObject({
      key_hash: hashApiKey(raw!),
      display_prefix: `${raw!.slice(0, 7)}...${raw!.slice(-4)}`,
      group_name: 'team',
      name: 'laptop',
      status: 'active',
      expires_at: new Date('2026-03-31T12:00:00.000Z'),
    });
    expect(JSON.stringify(key)).not.toContain(raw!.slice(3));
  });

  it('adds a key to an existing user without granting again', async () => {
    const first = await run(['--email', 'twice@example.com', '--group', 'default']);
    const second = await run(['--email', 'twice@example.com', '--group', 'default']);
    expect([first.code, second.code]).toEqual([0, 0]);
    expect(second.out[0]).toContain('existing user');
    expect(second.out).toContain('expires: never');
    expect(second.raw).not.toBe(first.raw);
    const user = await findUserByEmail(t.db, 'twice@example.com');
    expect((await getQuotaBalance(t.db, user!.id))?.balance_nanos).toBe('2500000000');
  });

  it.each([
    [['--group', 'default'], '--email is required'],
    [['--email', 'nope', '--group', 'default'], 'is not an email address'],
    [['--email', 'a@b.co'], '--group is required'],
    [
      ['--email', 'a@b.co', '--group', 'nosuch'],
      'group "nosuch" is not in the gateway config (groups: default, team)',
    ],
    [
      ['--email', 'a@b.co', '--group', 'default', '--expires-days', '0'],
      '--expires-days must be a whole number',
    ],
    [
      ['--email', 'a@b.co', '--group', 'default', '--expires-days', '1.5'],
      '--expires-days must be a whole number',
    ],
    [['--email', 'a@b.co', '--group', 'default', '--admin'], "Unknown option '--admin'"],
  ])('refuses %j with exit code 2 and writes nothing', async (argv, message) => {
    const { code, out, err } = await run(argv);
    expect(code).toBe(2);
    expect(out).toEqual([]);
    expect(err[0]).toContain(message);
    expect(err[1]).toMatch(/^usage: npm run key:create/);
    expect(await findUserByEmail(t.db, 'a@b.co')).toBeUndefined();
  });

  it('tells the operator to migrate when the database or its tables are missing', async () => {
    const name = `gwtest_keycreate_empty_${randomBytes(4).toString('hex')}`;
    const url = Object.assign(new URL(TEST_DATABASE_SERVER_URL), { pathname: `/${name}` }).toString();
    const db = createDb(url, { poolSize: 1 });
    try {
      const missingDb = await run(['--email', 'm@example.com', '--group', 'default'], db);
      expect(missingDb.code).toBe(1);
      expect(missingDb.err[0]).toContain('run `npm run migrate` first');
      await ensureDatabase(url);
      const missingTables = await run(['--email', 'm@example.com', '--group', 'default'], db);
      expect(missingTables.code).toBe(1);
      expect(missingTables.err[0]).toBe(
        'key:create: the gateway tables do not exist yet: run `npm run migrate` first',
      );
      expect(missingTables.out).toEqual([]);
    } finally {
      await db.destroy();
      const admin = new pg.Client({ connectionString: maintenanceUrlOf(url) });
      await admin.connect();
      await admin.query(`drop database if exists "${name}" with (force)`);
      await admin.end();
    }
  });
});
