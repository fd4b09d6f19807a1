import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { sql } from 'kysely';
import { type BareConsole, startBareConsole } from '../support/bare-console.js';
import { ConsoleClient } from '../support/console-client.js';

const BOOTSTRAP = 'tokens-e2e-bootstrap-token-0123456789';
const PASSWORD = 'correct horse battery staple';
const sha256 = (s: string): string => createHash('sha256').update(s).digest('hex');

let c: BareConsole;
let auditor: ConsoleClient;

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the API's JSON, as tests read it
type Json = any;

/** Events of an action, oldest first, read with the bootstrap token. */
async function eventsOf(action: string): Promise<Json[]> {
  const res = await c.bootstrap.get(`/api/admin/audit?action=${action}&limit=200`);
  expect(res.status).toBe(200);
  return (res.body.events as Json[]).reverse();
}

async function createToken(body: Json): Promise<{ id: string; secret: string; body: Json }> {
  const res = await c.bootstrap.post('/api/admin/tokens', body);
  expect(res.status).toBe(201);
  return { id: res.body.token.id, secret: res.body.secret, body: res.body };
}

async function listed(id: string): Promise<Json> {
  const res = await c.bootstrap.get('/api/admin/tokens');
  expect(res.status).toBe(200);
  return (res.body.tokens as Json[]).find((t) => t.id === id);
}

beforeAll(async () => {
  c = await startBareConsole('admin_tokens', BOOTSTRAP);
  const created = await c.bootstrap.post('/api/admin/users', {
    email: 'audra@example.com',
    password: PASSWORD,
    role: 'auditor',
  });
  expect(created.status).toBe(201);
  auditor = new ConsoleClient(c.url);
  await auditor.signIn('audra@example.com', PASSWORD);
}, 60_000);

afterAll(async () => {
  await c?.close();
});

describe('a named token', () => {
  it('is shown once, hashed at rest, acts with its role and says who it is', async () => {
    const { id, secret, body } = await createToken({
      name: 'deploy bot',
      role: 'operator',
      expiresInDays: 30,
    });
    expect(secret).toMatch(/^gwa_[\w-]{43}$/);
    expect(body.token).toMatchObject({
      name: 'deploy bot',
      role: 'operator',
      state: 'active',
      displayPrefix: secret.slice(0, 10),
      createdBy: 'admin token',
      lastUsedAt: null,
      revokedAt: null,
    });
    const days = (Date.parse(body.token.expiresAt) - Date.parse(body.token.createdAt)) / 86_400_000;
    expect(days).toBe(30);

    // Hashed at rest: no column of the row holds the secret, and the list never shows it.
    const rows = await sql<Json>`select * from admin_tokens where id = ${id}`.execute(c.db.db);
    expect(JSON.stringify(rows.rows)).not.toContain(secret);
    expect(JSON.stringify(rows.rows)).not.toContain(secret.slice(10));
    expect(rows.rows[0].token_hash).toBe(sha256(secret));
    const list = await c.bootstrap.get('/api/admin/tokens');
    expect(JSON.stringify(list.body)).not.toContain(secret.slice(10));
    expect(JSON.stringify(list.body)).not.toContain(sha256(secret));

    const bot = new ConsoleClient(c.url, secret);
    expect((await bot.get('/api/session')).body).toMatchObject({
      user: null,
      token: { id, name: 'deploy bot', role: 'operator' },
      admin: false,
    });
    expect((await bot.get('/api/admin/config')).status).toBe(200);
    // An operator: no users, no money.
    expect((await bot.get('/api/admin/users')).status).toBe(403);
    expect((await bot.post('/api/admin/users', { email: 'x@example.com', password: PASSWORD })).status).toBe(
      403,
    );
    // A token owns no keys.
    expect((await bot.get('/api/keys')).status).toBe(403);

    // The audit trail: the creation (no secret, no hash) and the refusal, under the token's name.
    const [create] = (await eventsOf('token.create')).filter((e) => e.target.id === id);
    expect(create).toMatchObject({
      actor: { kind: 'token', id: null, tokenName: 'admin token' },
      outcome: 'ok',
      after: { name: 'deploy bot', role: 'operator', displayPrefix: secret.slice(0, 10) },
    });
    expect(JSON.stringify(create)).not.toContain(secret.slice(10));
    const refused = (await eventsOf('access.refused')).filter((e) => e.actor.id === id);
    expect(refused.map((e) => e.target.id)).toEqual([
      'GET /api/admin/users',
      'POST /api/admin/users',
      'GET /api/keys',
    ]);
    expect(refused[0]).toMatchObject({
      actor: { kind: 'token', tokenName: 'deploy bot' },
      outcome: 'refused',
      reason: expect.stringContaining('needs the role admin or auditor (you are operator)'),
    });
  });

  it('shows its last use, written at most once a minute', async () => {
    const { id, secret } = await createToken({ name: 'reader', role: 'auditor', expiresInDays: 1 });
    const bot = new ConsoleClient(c.url, secret);
    const before = Date.now();
    expect((await bot.get('/api/admin/audit?limit=1')).status).toBe(200);
    const first = (await listed(id)).lastUsedAt;
    expect(Date.parse(first)).toBeGreaterThanOrEqual(before - 1000);
    // A second use within the minute writes nothing: the recorded time stays the first one.
    expect((await bot.get('/api/admin/users')).status).toBe(200);
    expect((await listed(id)).lastUsedAt).toBe(first);
    // Another console process wrote a use 10 s ago: this one's first use of the token skips the
    // write (the UPDATE's own guard), so several consoles add no writes either.
    const other = await createToken({ name: 'shared', role: 'auditor', expiresInDays: 1 });
    const written = await sql<{ at: Date }>`
      update admin_tokens set last_used_at = now() - interval '10 seconds' where id = ${other.id}
      returning last_used_at as at`.execute(c.db.db);
    expect((await new ConsoleClient(c.url, other.secret).get('/api/admin/users')).status).toBe(200);
    expect((await listed(other.id)).lastUsedAt).toBe(written.rows[0]!.at.toISOString());
  });

  it('an admin token acts as admin, named in the audit trail by id and name', async () => {
    const { id, secret } = await createToken({ name: 'ci admin', role: 'admin', expiresInDays: 7 });
    const bot = new ConsoleClient(c.url, secret);
    const res = await bot.post('/api/admin/users', { email: 'made-by-bot@example.com', password: PASSWORD });
    expect(res.status).toBe(201);
    expect(res.body.user.role).toBe('member');
    const [made] = (await eventsOf('user.create')).filter((e) => e.target.id === res.body.user.id);
    expect(made.actor).toEqual({ kind: 'token', id, email: null, tokenName: 'ci admin' });
  });
});

describe('a token refused', () => {
  it('past its expiry: 401, audited under its name', async () => {
    const secret = `gwa_${'e'.repeat(43)}`;
    const inserted = await sql<{ id: string }>`
      insert into admin_tokens (name, role, token_hash, display_prefix, created_by, created_at, expires_at)
      values ('old job', 'admin', ${sha256(secret)}, 'gwa_eeeeee', 'root@example.com',
              now() - interval '10 days', now() - interval '1 second')
      returning id`.execute(c.db.db);
    const id = inserted.rows[0]!.id;
    expect((await listed(id)).state).toBe('expired');
    const res = await new ConsoleClient(c.url, secret).get('/api/admin/config');
    expect(res.status).toBe(401);
    expect(res.body.error.message).toMatch(/^Admin token expired at /);
    const [event] = (await eventsOf('auth.token')).filter((e) => e.actor.id === id);
    expect(event).toMatchObject({
      actor: { kind: 'token', tokenName: 'old job' },
      outcome: 'refused',
      target: { type: 'route', id: 'GET /api/admin/config' },
      reason: expect.stringContaining('expired'),
    });
  });

  it('once revoked: 401 at once, audited; revoking twice records nothing more', async () => {
    const { id, secret } = await createToken({ name: 'leaked', role: 'operator', expiresInDays: 90 });
    const bot = new ConsoleClient(c.url, secret);
    expect((await bot.get('/api/admin/config')).status).toBe(200);
    const revoked = await c.bootstrap.post(`/api/admin/tokens/${id}/revoke`);
    expect(revoked.status).toBe(200);
    expect(revoked.body.token).toMatchObject({ state: 'revoked', revokedAt: expect.any(String) });
    const res = await bot.get('/api/admin/config');
    expect(res.status).toBe(401);
    expect(res.body.error.message).toBe('Revoked admin token.');
    expect((await c.bootstrap.post(`/api/admin/tokens/${id}/revoke`)).status).toBe(200);

    const revokes = (await eventsOf('token.revoke')).filter((e) => e.target.id === id);
    expect(revokes).toHaveLength(1);
    expect(revokes[0]).toMatchObject({
      actor: { kind: 'token', tokenName: 'admin token' },
      before: { name: 'leaked', role: 'operator', state: 'active' },
      after: { name: 'leaked', role: 'operator', state: 'revoked' },
    });
    const [refusal] = (await eventsOf('auth.token')).filter((e) => e.actor.id === id);
    expect(refusal).toMatchObject({ outcome: 'refused', reason: 'revoked admin token' });
  });

  it('unknown or malformed: 401, audited as anonymous, never a 500', async () => {
    for (const bearer of [`gwa_${'u'.repeat(43)}`, 'gwa_short', 'not-the-bootstrap-token']) {
      const res = await new ConsoleClient(c.url, bearer).get('/api/admin/tokens');
      expect(res.status).toBe(401);
    }
    const reasons = (await eventsOf('auth.token'))
      .filter((e) => e.actor.kind === 'anonymous')
      .map((e) => e.reason);
    expect(reasons).toEqual(
      expect.arrayContaining(['unknown admin token', 'malformed admin token', 'invalid admin token']),
    );
  });
});

describe('creating and revoking', () => {
  it.each([
    [{ name: 'm', role: 'member', expiresInDays: 1 }, 'a token cannot be a member'],
    [{ name: 'x', role: 'operator' }, 'expiresInDays'],
    [{ name: 'x', role: 'operator', expiresInDays: 0 }, 'expiresInDays'],
    [{ name: 'x', role: 'operator', expiresInDays: 367 }, 'expiresInDays'],
    [{ name: 'Admin Token', role: 'operator', expiresInDays: 1 }, 'reserved'],
    [{ name: '  ', role: 'operator', expiresInDays: 1 }, 'name'],
    [{ name: 'x', role: 'owner', expiresInDays: 1 }, 'must be one of admin, operator, auditor'],
  ])('refuses %j with a 400 naming the problem', async (body, words) => {
    const res = await c.bootstrap.post('/api/admin/tokens', body);
    expect(res.status).toBe(400);
    expect(res.body.error.message).toContain(words);
  });

  it('is for admins; auditors see the list (never a secret) and are refused the rest, audited', async () => {
    expect((await auditor.get('/api/admin/tokens')).status).toBe(200);
    const res = await auditor.post('/api/admin/tokens', { name: 'mine', role: 'admin', expiresInDays: 1 });
    expect(res.status).toBe(403);
    const [event] = (await eventsOf('access.refused')).filter((e) => e.actor.email === 'audra@example.com');
    expect(event).toMatchObject({ target: { id: 'POST /api/admin/tokens' }, outcome: 'refused' });
    expect((await c.bootstrap.post('/api/admin/tokens/not-a-uuid/revoke')).status).toBe(400);
    expect(
      (await c.bootstrap.post('/api/admin/tokens/00000000-0000-4000-8000-000000000000/revoke')).status,
    ).toBe(404);
  });
});

describe('roles of users', () => {
  it("a role change is audited before and after; the old role 'user' is refused by name", async () => {
    const created = await c.bootstrap.post('/api/admin/users', {
      email: 'opal@example.com',
      password: PASSWORD,
    });
    expect(created.body.user.role).toBe('member');
    const id = created.body.user.id;
    const old = await c.bootstrap.patch(`/api/admin/users/${id}`, { role: 'user' });
    expect(old.status).toBe(400);
    expect(old.body.error.message).toContain("the role 'user' is now called 'member'");
    expect((await c.bootstrap.patch(`/api/admin/users/${id}`, { role: 'operator' })).status).toBe(200);
    const [event] = (await eventsOf('user.role')).filter((e) => e.target.id === id);
    expect(event).toMatchObject({ before: { role: 'member' }, after: { role: 'operator' } });
  });
});
