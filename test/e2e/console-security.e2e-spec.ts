import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { type INestApplication } from '@nestjs/common';
import { createConsoleApp } from '../../apps/console/src/console.app.js';
import { type Env, type GatewayConfig } from '#libs/config';
import { insertRequestLogs } from '#libs/db';
import { ConsoleClient } from '../support/console-client.js';
import { requestLogJob } from '../support/db.js';
import { type Gateway, startGateway } from '../support/gateway.js';

const TOKEN = 'test-admin-token-0123456789abcdef';
const PASSWORD = 'correct horse battery staple';

let gw: Gateway;
const apps: INestApplication[] = [];
let url: string;
let admin: ConsoleClient;
let alice: ConsoleClient;
let bob: ConsoleClient;
const ids: Record<string, string> = {};

/** A console on the gateway's database and Redis, with an admin token and the given console settings. */
async function startConsole(
  console: Partial<GatewayConfig['console']> = {},
  env: Partial<Env> = {},
): Promise<string> {
  const app = await createConsoleApp(
    { ...gw.env, consoleAdminToken: TOKEN, ...env },
    { ...gw.config, console: { ...gw.config.console, ...console } },
  );
  apps.push(app);
  await app.listen(0, '127.0.0.1');
  return (await app.getUrl()).replace('[::1]', '127.0.0.1');
}

async function createUser(email: string, role = 'member'): Promise<string> {
  const res = await admin.post('/api/admin/users', { email, password: PASSWORD, role });
  expect(res.status).toBe(201);
  return res.body.user.id as string;
}

beforeAll(async () => {
  gw = await startGateway('console-sec');
  url = await startConsole({ sign_in_max_failures_per_email: 3, sign_in_max_failures_per_ip: 1000 });
  admin = new ConsoleClient(url, TOKEN);
  ids.alice = await createUser('alice@example.com');
  ids.bob = await createUser('bob@example.com');
  ids.root = await createUser('root@example.com', 'admin');
  alice = new ConsoleClient(url);
  await alice.signIn('alice@example.com', PASSWORD);
  bob = new ConsoleClient(url);
  await bob.signIn('Bob@Example.com ', PASSWORD);
  const key = await bob.post('/api/keys', { name: 'bob key', group: 'default' });
  expect(key.status).toBe(201);
  ids.bobKey = key.body.key.id;
  const bobLog = requestLogJob({ userId: ids.bob, keyId: ids.bobKey });
  const aliceLog = requestLogJob({ userId: ids.alice, status: 502, errorCode: 'upstream_error' });
  await insertRequestLogs(gw.db.db, [bobLog, aliceLog]);
  ids.bobLog = bobLog.requestId;
  ids.aliceLog = aliceLog.requestId;
}, 30_000);

afterAll(async () => {
  for (const app of apps) await app.close();
  await gw?.close();
});

describe('sign-in', () => {
  it('opens a session: HttpOnly, SameSite=Lax cookie and a CSRF token', async () => {
    const c = new ConsoleClient(url);
    const res = await c.post('/api/auth/sign-in', { email: 'alice@example.com', password: PASSWORD });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      user: { id: ids.alice, email: 'alice@example.com', role: 'member' },
      csrfToken: expect.stringMatching(/^[\w-]{43}$/),
      gatewayUrl: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/),
    });
    const cookie = res.headers.getSetCookie().find((s) => s.startsWith('gw_session='))!;
    expect(cookie).toMatch(/HttpOnly/i);
    expect(cookie).toMatch(/SameSite=Lax/i);
    expect(cookie).toMatch(/Path=\//);
    expect(cookie).not.toMatch(/Secure/i); // plain http here; see the https console below
    expect((await c.get('/api/session')).body.user.email).toBe('alice@example.com');
  });

  it('answers an unknown email and a wrong password alike', async () => {
    const c = new ConsoleClient(url);
    const wrong = await c.post('/api/auth/sign-in', {
      email: 'root@example.com',
      password: 'not the password',
    });
    const unknown = await c.post('/api/auth/sign-in', { email: 'nobody@example.com', password: PASSWORD });
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    expect(unknown.body).toEqual(wrong.body);
    expect(wrong.body.error.code).toBe('unauthenticated');
    expect(wrong.setSession).toBeUndefined();
  });

  it('throttles an email after repeated failures, even for the right password, with retry-after', async () => {
    await createUser('target@example.com');
    const c = new ConsoleClient(url);
    for (let i = 0; i < 3; i++)
      expect(
        (await c.post('/api/auth/sign-in', { email: 'target@example.com', password: `guess ${i}` })).status,
      ).toBe(401);
    const res = await c.post('/api/auth/sign-in', { email: 'target@example.com', password: PASSWORD });
    expect(res.status).toBe(429);
    expect(res.body.error.code).toBe('rate_limited');
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
    // Other emails from the same address are unaffected by the per-email limit.
    expect(
      (await c.post('/api/auth/sign-in', { email: 'alice@example.com', password: PASSWORD })).status,
    ).toBe(200);
  });

  it('throttles a client IP spraying many emails (behind a trusted proxy: by X-Forwarded-For)', async () => {
    const sprayUrl = await startConsole({ sign_in_max_failures_per_ip: 3, trust_proxy: true });
    const c = new ConsoleClient(sprayUrl);
    const from = (ip: string) => ({ headers: { 'x-forwarded-for': ip } });
    for (let i = 0; i < 3; i++) {
      const res = await c.post(
        '/api/auth/sign-in',
        { email: `spray${i}@example.com`, password: 'x' },
        from('203.0.113.7'),
      );
      expect(res.status).toBe(401);
    }
    const res = await c.post(
      '/api/auth/sign-in',
      { email: 'alice@example.com', password: PASSWORD },
      from('203.0.113.7'),
    );
    expect(res.status).toBe(429);
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
    // Another client address is not held back by that one's failures.
    const other = await c.post(
      '/api/auth/sign-in',
      { email: 'alice@example.com', password: PASSWORD },
      from('198.51.100.9'),
    );
    expect(other.status).toBe(200);
  });

  it('sets Secure cookies when the console is served over https', async () => {
    const httpsUrl = await startConsole({ public_url: 'https://console.example.com' });
    const res = await new ConsoleClient(httpsUrl).signIn('alice@example.com', PASSWORD);
    expect(res.headers.getSetCookie().find((s) => s.startsWith('gw_session='))).toMatch(/; Secure/i);
  });

  it('refuses bodies that are not JSON (what a cross-site form could send)', async () => {
    const c = new ConsoleClient(url);
    const res = await c.post('/api/auth/sign-in', undefined, {
      raw: `{"email":"alice@example.com","password":"${PASSWORD}"}`,
      headers: { 'content-type': 'text/plain' },
    });
    expect(res.status).toBe(415);
    expect(res.body.error.code).toBe('unsupported_media_type');
    const form = await c.post('/api/auth/sign-in', undefined, {
      raw: 'email=alice%40example.com',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(form.status).toBe(415);
  });
});

describe('sessions', () => {
  it('never keep a session id chosen before sign-in (fixation)', async () => {
    const c = new ConsoleClient(url);
    const planted = 'A'.repeat(43);
    c.session = planted;
    const res = await c.signIn('alice@example.com', PASSWORD);
    expect(res.setSession).toBeDefined();
    expect(res.setSession).not.toBe(planted);

    // A real session is replaced too: signing in again issues a new id and ends the old one.
    const before = c.session!;
    const again = await c.signIn('alice@example.com', PASSWORD);
    expect(again.setSession).not.toBe(before);
    const old = new ConsoleClient(url);
    old.session = before;
    expect((await old.get('/api/session')).status).toBe(401);
    expect((await c.get('/api/session')).status).toBe(200);
  });

  it('end at sign-out, which needs the CSRF token', async () => {
    const c = new ConsoleClient(url);
    await c.signIn('alice@example.com', PASSWORD);
    expect((await c.post('/api/auth/sign-out', undefined, { noCsrf: true })).status).toBe(403);
    const sid = c.session!;
    const out = await c.post('/api/auth/sign-out');
    expect(out.status).toBe(204);
    expect(out.setSession).toBe('');
    const replay = new ConsoleClient(url);
    replay.session = sid;
    expect((await replay.get('/api/session')).status).toBe(401);
    expect((await replay.get('/api/keys')).status).toBe(401);
  });

  it('end for a disabled user, who can no longer sign in; enabling lets them back', async () => {
    const carolId = await createUser('carol@example.com');
    const carol = new ConsoleClient(url);
    await carol.signIn('carol@example.com', PASSWORD);
    expect((await admin.patch(`/api/admin/users/${carolId}`, { status: 'disabled' })).body.user.status).toBe(
      'disabled',
    );
    expect((await carol.get('/api/session')).status).toBe(401);
    const again = await new ConsoleClient(url).post('/api/auth/sign-in', {
      email: 'carol@example.com',
      password: PASSWORD,
    });
    expect(again.status).toBe(401);
    expect(again.setSession).toBeUndefined();
    await admin.patch(`/api/admin/users/${carolId}`, { status: 'active' });
    await new ConsoleClient(url).signIn('carol@example.com', PASSWORD);
  });

  it('end when the role changes (as the Users page says), and not for other edits', async () => {
    const erinId = await createUser('erin@example.com');
    const erin = new ConsoleClient(url);
    await erin.signIn('erin@example.com', PASSWORD);
    await admin.patch(`/api/admin/users/${erinId}`, { groups: ['default'] });
    expect((await erin.get('/api/session')).status).toBe(200);
    expect((await admin.patch(`/api/admin/users/${erinId}`, { role: 'auditor' })).status).toBe(200);
    expect((await erin.get('/api/session')).status).toBe(401);
  });
});

describe('CSRF', () => {
  it('refuses a mutating request without the token, or with a wrong one', async () => {
    const missing = await alice.post('/api/keys', { name: 'k', group: 'default' }, { noCsrf: true });
    expect(missing.status).toBe(403);
    expect(missing.body.error.code).toBe('csrf_failed');
    const wrong = await alice.post(
      '/api/keys',
      { name: 'k', group: 'default' },
      { headers: { 'x-csrf-token': bob.csrf! } },
    );
    expect(wrong.status).toBe(403);
    expect(wrong.body.error.code).toBe('csrf_failed');
    expect((await alice.get('/api/keys')).body.keys).toEqual([]);
    expect((await alice.post('/api/keys', { name: 'k', group: 'default' })).status).toBe(201);
  });

  it('guards admin mutations the same way', async () => {
    const root = new ConsoleClient(url);
    await root.signIn('root@example.com', PASSWORD);
    const res = await root.post(
      '/api/admin/users',
      { email: 'csrf@example.com', password: PASSWORD },
      { noCsrf: true },
    );
    expect(res.status).toBe(403);
    expect(
      (await root.post('/api/admin/users', { email: 'csrf@example.com', password: PASSWORD })).status,
    ).toBe(201);
  });
});

describe('authorization', () => {
  it("answers 404 for another user's key, and leaves it alone", async () => {
    const res = await alice.post(`/api/keys/${ids.bobKey}/revoke`);
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('not_found');
    const unknown = await alice.post('/api/keys/00000000-0000-4000-8000-000000000000/revoke');
    expect(unknown.body).toEqual(res.body); // the same answer as a key that does not exist
    expect((await bob.get('/api/keys')).body.keys[0].status).toBe('active');
    expect((await alice.get('/api/keys')).body.keys.map((k: { id: string }) => k.id)).not.toContain(
      ids.bobKey,
    );
  });

  it("answers 404 for another user's request log, and lists only one's own", async () => {
    expect((await alice.get(`/api/logs/${ids.bobLog}`)).status).toBe(404);
    expect((await bob.get(`/api/logs/${ids.bobLog}`)).body.log.userId).toBe(ids.bob);
    const aliceLogs = await alice.get('/api/logs');
    expect(aliceLogs.body.items.map((i: { requestId: string }) => i.requestId)).toEqual([ids.aliceLog]);
    // keyId of someone else's key filters to nothing rather than revealing their logs.
    expect((await alice.get(`/api/logs?keyId=${ids.bobKey}`)).body.items).toEqual([]);
  });

  // Every row has three entries: jest hands a `done` callback to rows shorter than the test's parameters.
  it("counts only one's own requests in usage", async () => {
    const aliceUsage = (await alice.get('/api/usage')).body;
    const bobUsage = (await bob.get('/api/usage')).body;
    expect(aliceUsage.totals.requests).toBe(1);
    expect(bobUsage.totals.requests).toBe(1);
    expect((await alice.get(`/api/usage?userId=${ids.bob}`)).status).toBe(400);
  });

  const adminRoutes: [string, string, unknown][] = [
    ['GET', '/api/admin/users', undefined],
    ['POST', '/api/admin/users', { email: 'x@example.com', password: PASSWORD }],
    ['PATCH', '/api/admin/users/00000000-0000-4000-8000-000000000000', { status: 'disabled' }],
    ['POST', '/api/admin/users/00000000-0000-4000-8000-000000000000/grants', { credits: 5 }],
    ['GET', '/api/admin/keys', undefined],
    ['POST', '/api/admin/keys/00000000-0000-4000-8000-000000000000/revoke', undefined],
    ['GET', '/api/admin/logs', undefined],
    ['GET', '/api/admin/logs/req_x', undefined],
    ['GET', '/api/admin/providers', undefined],
    ['GET', '/api/admin/groups', undefined],
  ];

  it.each(adminRoutes)('refuses %s %s to a user with 403', async (method, path, body) => {
    const res = await alice.request(method, path, body);
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('forbidden');
  });

  it.each(adminRoutes)('refuses %s %s without a session with 401', async (method, path, body) => {
    const res = await new ConsoleClient(url).request(method, path, body);
    expect(res.status).toBe(401);
  });

  it.each([
    ['GET', '/api/session'],
    ['GET', '/api/groups'],
    ['GET', '/api/keys'],
    ['POST', '/api/keys'],
    ['POST', '/api/keys/00000000-0000-4000-8000-000000000000/revoke'],
    ['GET', '/api/usage'],
    ['GET', '/api/logs'],
    ['GET', '/api/logs/req_x'],
    ['POST', '/api/auth/sign-out'],
  ])('refuses %s %s without a session with 401', async (method, path) => {
    const res = await new ConsoleClient(url).request(method, path);
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('unauthenticated');
  });

  it('lets admins see every user, key and log, and filter logs by user', async () => {
    const root = new ConsoleClient(url);
    await root.signIn('root@example.com', PASSWORD);
    const users = (await root.get('/api/admin/users')).body.users.map((u: { email: string }) => u.email);
    expect(users).toEqual(
      expect.arrayContaining(['alice@example.com', 'bob@example.com', 'root@example.com']),
    );
    const keys = (await root.get('/api/admin/keys')).body.keys;
    expect(keys.find((k: { id: string }) => k.id === ids.bobKey)).toMatchObject({
      userEmail: 'bob@example.com',
    });
    const logs = (await root.get('/api/admin/logs')).body.items.map(
      (i: { requestId: string }) => i.requestId,
    );
    expect(logs).toEqual(expect.arrayContaining([ids.bobLog, ids.aliceLog]));
    const onlyBob = (await root.get(`/api/admin/logs?userId=${ids.bob}`)).body.items;
    expect(onlyBob.map((i: { requestId: string }) => i.requestId)).toEqual([ids.bobLog]);
    expect((await root.get(`/api/admin/logs/${ids.aliceLog}`)).body.log.userId).toBe(ids.alice);
  });

  it('lets users create keys only in groups they may use', async () => {
    const res = await alice.post('/api/keys', { name: 'secret models', group: 'other' });
    expect(res.status).toBe(403);
    expect((await alice.get('/api/groups')).body.groups.map((g: { name: string }) => g.name)).toEqual([
      'default',
    ]);
    await admin.patch(`/api/admin/users/${ids.alice}`, { groups: ['default', 'other'] });
    expect((await alice.post('/api/keys', { name: 'secret models', group: 'other' })).status).toBe(201);
    await admin.patch(`/api/admin/users/${ids.alice}`, { groups: null });
  });

  it('accepts the admin token without a cookie or CSRF token, and nothing else as a token', async () => {
    expect((await admin.get('/api/admin/users')).status).toBe(200);
    expect(
      (await admin.post('/api/admin/users', { email: 'bot@example.com', password: PASSWORD })).status,
    ).toBe(201);
    const wrong = new ConsoleClient(url, 'not-the-token');
    expect((await wrong.get('/api/admin/users')).status).toBe(401);
    // The token has no keys of its own.
    expect((await admin.get('/api/keys')).status).toBe(403);
    // On a console without CONSOLE_ADMIN_TOKEN, no bearer token works.
    const none = new ConsoleClient(gw.consoleUrl, TOKEN);
    expect((await none.get('/api/admin/users')).status).toBe(401);
  });

  it('keeps admins from locking themselves out', async () => {
    const root = new ConsoleClient(url);
    await root.signIn('root@example.com', PASSWORD);
    expect((await root.patch(`/api/admin/users/${ids.root}`, { status: 'disabled' })).status).toBe(409);
    expect((await root.patch(`/api/admin/users/${ids.root}`, { role: 'member' })).status).toBe(409);
  });
});

describe('hostile input', () => {
  const injections = [
    "' or 1=1 --",
    "'; drop table users; --",
    '1) union select * from users --',
    '\u0000',
    '%27',
  ];
  const filters = ['from', 'to', 'model', 'keyId', 'status', 'cursor', 'limit'];

  it.each(filters)(
    'an injection string in %s gets a clean 400 or an empty page, never a 500',
    async (filter) => {
      for (const value of injections) {
        for (const [client, path] of [
          [alice, '/api/logs'],
          [admin, '/api/admin/logs'],
        ] as const) {
          const res = await client.get(`${path}?${filter}=${encodeURIComponent(value)}`);
          expect([200, 400]).toContain(res.status);
          if (res.status === 200) expect(res.body.items).toEqual([]);
          else expect(res.body.error.code).toBe('invalid_request');
        }
      }
    },
  );

  it('an injection string in userId, usage dates and ids gets a clean 400 or 404', async () => {
    for (const value of injections) {
      const v = encodeURIComponent(value);
      for (const [client, path] of [
        [admin, `/api/admin/logs?userId=${v}`],
        [admin, `/api/admin/keys?userId=${v}`],
        [alice, `/api/usage?from=${v}`],
        [alice, `/api/usage?to=${v}`],
        [alice, `/api/logs/${v}`],
        [admin, `/api/admin/logs/${v}`],
      ] as const) {
        const res = await client.get(path);
        expect([400, 404]).toContain(res.status);
        expect(res.body.error.code).toMatch(/^(invalid_request|not_found)$/);
      }
      expect((await alice.post(`/api/keys/${v}/revoke`)).status).toBe(400);
      expect((await admin.patch(`/api/admin/users/${v}`, { status: 'active' })).status).toBe(400);
    }
    // The table is still there.
    expect((await admin.get('/api/admin/users')).status).toBe(200);
  });

  it('NUL characters (which Postgres text cannot hold) in body fields are a 400, not a 500', async () => {
    const signIn = await new ConsoleClient(url).post('/api/auth/sign-in', {
      email: 'a\u0000@b.co',
      password: 'x',
    });
    expect(signIn.status).toBe(400);
    expect((await alice.post('/api/keys', { name: 'a\u0000b', group: 'default' })).status).toBe(400);
    expect(
      (await admin.post(`/api/admin/users/${ids.bob}/grants`, { credits: 1, note: '\u0000' })).status,
    ).toBe(400);
    expect((await admin.post('/api/admin/users', { email: 'x\u0000@b.co', password: PASSWORD })).status).toBe(
      400,
    );
  });

  it('repeated query parameters and unknown ones are a 400', async () => {
    expect((await alice.get('/api/logs?model=a&model=b')).status).toBe(400);
    expect((await alice.get('/api/logs?orderBy=started_at')).status).toBe(400);
  });

  it('oversized fields are a 400 and oversized bodies a 413', async () => {
    const huge = await alice.post('/api/keys', { name: 'n'.repeat(10_000), group: 'default' });
    expect(huge.status).toBe(400);
    expect(huge.body.error.message).toMatch(/name/);
    const longEmail = await new ConsoleClient(url).post('/api/auth/sign-in', {
      email: `${'a'.repeat(300)}@example.com`,
      password: 'x',
    });
    expect(longEmail.status).toBe(400);
    const longPassword = await new ConsoleClient(url).post('/api/auth/sign-in', {
      email: 'alice@example.com',
      password: 'p'.repeat(10_000),
    });
    expect(longPassword.status).toBe(400);
    const body = await alice.post('/api/keys', { name: 'x', group: 'default', pad: 'p'.repeat(200_000) });
    expect(body.status).toBe(413);
    expect(body.body.error.code).toBe('payload_too_large');
  });

  it('malformed JSON and wrong types are a 400 naming the problem', async () => {
    const bad = await alice.post('/api/keys', undefined, { raw: '{"name": ' });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('invalid_request');
    const types = await alice.post('/api/keys', { name: 42, group: 'default' });
    expect(types.status).toBe(400);
    const extra = await alice.post('/api/keys', { name: 'k', group: 'default', userId: ids.bob });
    expect(extra.status).toBe(400);
    const past = await alice.post('/api/keys', {
      name: 'k',
      group: 'default',
      expiresAt: '2000-01-01T00:00:00Z',
    });
    expect(past.status).toBe(400);
    expect(past.body.error.message).toMatch(/expiresAt/);
  });

  it('unknown API routes are JSON 404s', async () => {
    const res = await alice.get('/api/nope');
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('not_found');
    expect((await alice.post('/api/nope', {})).status).toBe(404);
  });
});
