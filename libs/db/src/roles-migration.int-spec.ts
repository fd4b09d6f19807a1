import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { type Kysely, sql } from 'kysely';
import { createDatabaseBelow } from '../../../test/support/db.js';
import { type Database } from './database.js';
import { migrateToLatest } from './migrator.js';

// Migration 0015 on a database that has users already: 'user' becomes 'member', nothing else
// moves, and the old name is refused afterwards.

let t: Awaited<ReturnType<typeof createDatabaseBelow>>;
let db: Kysely<Database>;

const roles = async (): Promise<Record<string, string>> => {
  const { rows } = await sql<{ email: string; role: string }>`select email, role from users`.execute(db);
  return Object.fromEntries(rows.map((r) => [r.email, r.role]));
};

beforeAll(async () => {
  t = await createDatabaseBelow('roles', '0015');
  db = t.db;
  await sql`insert into users (email, role) values ('ana@example.com', 'user'), ('root@example.com', 'admin')`.execute(
    db,
  );
  await sql`insert into users (email) values ('default@example.com')`.execute(db);
}, 30_000);

afterAll(async () => {
  await t?.drop();
});

describe('migration 0015', () => {
  // migrateToLatest applies every migration after 0015 too (nine now, some building indexes and
  // functions): well past Jest's 5 s default for a test on a loaded CI machine.
  it("renames every 'user' to 'member' and leaves admins as they were", async () => {
    expect(await roles()).toEqual({
      'ana@example.com': 'user',
      'root@example.com': 'admin',
      'default@example.com': 'user',
    });
    const applied = await migrateToLatest(db);
    expect(applied[0]).toBe('0015_roles_and_admin_tokens');
    expect(await roles()).toEqual({
      'ana@example.com': 'member',
      'root@example.com': 'admin',
      'default@example.com': 'member',
    });
  }, 60_000);

  it("defaults to member, takes the new roles and refuses 'user'", async () => {
    await sql`insert into users (email) values ('new@example.com')`.execute(db);
    await sql`insert into users (email, role) values ('op@example.com', 'operator'), ('au@example.com', 'auditor')`.execute(
      db,
    );
    expect(await roles()).toMatchObject({
      'new@example.com': 'member',
      'op@example.com': 'operator',
      'au@example.com': 'auditor',
    });
    await expect(
      sql`insert into users (email, role) values ('old@example.com', 'user')`.execute(db),
    ).rejects.toThrow(/users_role_check/);
  });

  it('admin_tokens requires an expiry after creation and a unique hash', async () => {
    const insert = (hash: string, expires: string) =>
      sql`insert into admin_tokens (name, role, token_hash, display_prefix, created_by, expires_at)
          values ('t', 'auditor', ${hash}, 'gwa_abcdef', 'root@example.com', ${expires}::timestamptz)`.execute(
        db,
      );
    await insert('h1', '2099-01-01T00:00:00Z');
    await expect(insert('h1', '2099-01-01T00:00:00Z')).rejects.toThrow(/admin_tokens_token_hash/);
    await expect(insert('h2', '2000-01-01T00:00:00Z')).rejects.toThrow(/admin_tokens_expiry_after_creation/);
    await expect(
      sql`insert into admin_tokens (name, role, token_hash, display_prefix, created_by, expires_at)
          values ('t', 'owner', 'h3', 'p', 'x', now() + interval '1 day')`.execute(db),
    ).rejects.toThrow(/admin_tokens_role_check/);
  });
});
