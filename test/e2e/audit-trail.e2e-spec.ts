import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { sql } from 'kysely';
import { ConsoleClient, type RequestOptions } from '../support/console-client.js';
import { type Gateway, startGateway, testConfig } from '../support/gateway.js';

const TOKEN = 'audit-admin-token-0123456789abcdef';
const PASSWORD = 'correct horse battery staple';
const VENDOR_KEY = `sk-audit-${randomBytes(16).toString('hex')}`;

/** Each caller comes from its own address (behind the trusted proxy) with its own user agent. */
const ROOT = { ip: '203.0.113.10', ua: 'audit-e2e root/1.0' };
const ALICE = { ip: '198.51.100.20', ua: 'audit-e2e alice/1.0' };
const AUTOMATION = { ip: '192.0.2.30', ua: 'audit-e2e automation/1.0' };
const from = (who: { ip: string; ua: string }): RequestOptions => ({
  headers: { 'x-forwarded-for': who.ip, 'user-agent': who.ua },
});

let gw: Gateway;
let token: ConsoleClient;
let root: ConsoleClient;
let alice: ConsoleClient;
const ids = {} as { root: string; alice: string };

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the API's JSON, as tests read it
type Event = any;

/** Every event of an action (or family), oldest first, read as an admin would. */
async function eventsOf(action: string, extra = ''): Promise<Event[]> {
  const res = await token.get(`/api/admin/audit?action=${action}&limit=200${extra}`);
  expect(res.status).toBe(200);
  return (res.body.events as Event[]).reverse();
}

/** The one event of an action on a target. */
async function theEvent(action: string, targetId: string): Promise<Event> {
  const events = (await eventsOf(action)).filter((e) => e.target.id === targetId);
  expect(events).toHaveLength(1);
  return events[0];
}

const byRoot = () => ({
  actor: { kind: 'user', id: ids.root, email: 'root@example.com', tokenName: null },
  ip: ROOT.ip,
  userAgent: ROOT.ua,
});

beforeAll(async () => {
  gw = await startGateway(
    'audit_trail',
    (url) => {
      const c = testConfig(url);
      return { ...c, console: { ...c.console, trust_proxy: true } };
    },
    { env: { CONSOLE_ADMIN_TOKEN: TOKEN, GATEWAY_SECRET_KEYS: `k1:${randomBytes(32).toString('base64')}` } },
  );
  token = new ConsoleClient(gw.consoleUrl, TOKEN);
  const created = await token.post(
    '/api/admin/users',
    { email: 'root@example.com', password: PASSWORD, role: 'admin' },
    from(AUTOMATION),
  );
  expect(created.status).toBe(201);
  ids.root = created.body.user.id;
  root = new ConsoleClient(gw.consoleUrl);
  expect(
    (await root.post('/api/auth/sign-in', { email: 'root@example.com', password: PASSWORD }, from(ROOT)))
      .status,
  ).toBe(200);
}, 60_000);

afterAll(async () => {
  await gw?.close();
});

describe('the audit trail records each change with who, when, from where and what', () => {
  it('a user created with the admin token: the token, its address, the user without its password', async () => {
    const e = await theEvent('user.create', ids.root);
    expect(e).toMatchObject({
      actor: { kind: 'token', id: null, email: null, tokenName: 'admin token' },
      ip: AUTOMATION.ip,
      userAgent: AUTOMATION.ua,
      outcome: 'ok',
      target: { type: 'user', id: ids.root },
      before: null,
      after: { email: 'root@example.com', role: 'admin', groups: null },
    });
    expect(Date.now() - Date.parse(e.at)).toBeLessThan(10 * 60_000);
    expect(JSON.stringify(e)).not.toContain(PASSWORD);
  });

  it("an admin's sign-in, from the client address the trusted proxy names", async () => {
    const e = await theEvent('auth.sign_in', ids.root);
    expect(e).toMatchObject({ ...byRoot(), outcome: 'ok', after: { method: 'password', role: 'admin' } });
  });

  it('a failed sign-in, with the email it tried and the reason, never the password tried', async () => {
    const c = new ConsoleClient(gw.consoleUrl);
    const bad = await c.post(
      '/api/auth/sign-in',
      { email: 'root@example.com', password: 'guess' },
      from(ALICE),
    );
    expect(bad.status).toBe(401);
    const refused = (await eventsOf('auth.sign_in', '&outcome=refused')).filter(
      (e) => e.actor.email === 'root@example.com',
    );
    expect(refused).toHaveLength(1);
    expect(refused[0]).toMatchObject({
      actor: { kind: 'anonymous', id: null, email: 'root@example.com' },
      ip: ALICE.ip,
      userAgent: ALICE.ua,
      outcome: 'refused',
      reason: 'Wrong email or password.',
    });
    expect(JSON.stringify(refused[0])).not.toContain('guess');
  });

  it('a user created by an admin, whose own sign-in (a member) is not a change', async () => {
    const res = await root.post(
      '/api/admin/users',
      { email: 'alice@example.com', password: PASSWORD },
      from(ROOT),
    );
    expect(res.status).toBe(201);
    ids.alice = res.body.user.id;
    alice = new ConsoleClient(gw.consoleUrl);
    expect(
      (await alice.post('/api/auth/sign-in', { email: 'alice@example.com', password: PASSWORD }, from(ALICE)))
        .status,
    ).toBe(200);
    expect(await theEvent('user.create', ids.alice)).toMatchObject({
      ...byRoot(),
      after: { email: 'alice@example.com', role: 'member' },
    });
    expect((await eventsOf('auth.sign_in', '&outcome=ok')).filter((e) => e.target.id === ids.alice)).toEqual(
      [],
    );
  });

  it('a member calling an admin route: refused (403) and recorded, never a 500', async () => {
    const res = await alice.get('/api/admin/users', from(ALICE));
    expect(res.status).toBe(403);
    const e = (await eventsOf('access.refused')).filter((x) => x.actor.id === ids.alice);
    expect(e).toHaveLength(1);
    expect(e[0]).toMatchObject({
      actor: { kind: 'user', email: 'alice@example.com' },
      ip: ALICE.ip,
      userAgent: ALICE.ua,
      outcome: 'refused',
      target: { type: 'route', id: 'GET /api/admin/users' },
      reason: 'needs the role admin or auditor (you are member)',
    });
  });

  it('a role changed, then the user disabled: each with the state before and after', async () => {
    expect((await root.patch(`/api/admin/users/${ids.alice}`, { role: 'admin' }, from(ROOT))).status).toBe(
      200,
    );
    expect((await root.patch(`/api/admin/users/${ids.alice}`, { role: 'member' }, from(ROOT))).status).toBe(
      200,
    );
    const roles = (await eventsOf('user.role')).filter((e) => e.target.id === ids.alice);
    expect(roles.map((e) => [e.before.role, e.after.role])).toEqual([
      ['member', 'admin'],
      ['admin', 'member'],
    ]);
    expect(roles[0]).toMatchObject(byRoot());
    expect(
      (await root.patch(`/api/admin/users/${ids.alice}`, { status: 'disabled' }, from(ROOT))).status,
    ).toBe(200);
    expect(await theEvent('user.disable', ids.alice)).toMatchObject({
      ...byRoot(),
      before: { status: 'active' },
      after: { status: 'disabled' },
    });
    expect((await root.patch(`/api/admin/users/${ids.alice}`, { status: 'active' }, from(ROOT))).status).toBe(
      200,
    );
  });

  it('credits granted: the balance before and after, and the note', async () => {
    const res = await root.post(
      `/api/admin/users/${ids.alice}/grants`,
      { credits: 7, note: 'pilot' },
      from(ROOT),
    );
    expect(res.status).toBe(200);
    const e = await theEvent('credits.grant', ids.alice);
    expect(e).toMatchObject({
      ...byRoot(),
      after: { grantedCredits: 7, note: 'pilot', balanceCredits: res.body.balanceCredits },
    });
    expect(e.after.balanceCredits - e.before.balanceCredits).toBeCloseTo(7, 9);
  });

  it('a budget created, then deleted', async () => {
    const created = await root.post(
      `/api/admin/users/${ids.alice}/budgets`,
      { period: 'day', limitCredits: 3 },
      from(ROOT),
    );
    expect(created.status).toBe(201);
    const id = created.body.budget.id as string;
    expect(await theEvent('budget.create', id)).toMatchObject({
      ...byRoot(),
      before: null,
      after: { userId: ids.alice, keyId: null, period: 'day', limitCredits: 3 },
    });
    const request = { headers: from(ROOT).headers! };
    expect(
      (await root.request('DELETE', `/api/admin/users/${ids.alice}/budgets/${id}`, undefined, request))
        .status,
    ).toBe(200);
    expect(await theEvent('budget.delete', id)).toMatchObject({
      ...byRoot(),
      after: null,
      before: { limitCredits: 3 },
    });
  });

  it("a member's key created by her, then revoked by an admin", async () => {
    // Disabling ended alice's session: she signs in again.
    await alice.post('/api/auth/sign-in', { email: 'alice@example.com', password: PASSWORD }, from(ALICE));
    const key = await alice.post('/api/keys', { name: 'alice key', group: 'default' }, from(ALICE));
    expect(key.status).toBe(201);
    const id = key.body.key.id as string;
    const created = await theEvent('key.create', id);
    expect(created).toMatchObject({
      actor: { kind: 'user', id: ids.alice, email: 'alice@example.com' },
      ip: ALICE.ip,
      userAgent: ALICE.ua,
      after: {
        ownerId: ids.alice,
        name: 'alice key',
        group: 'default',
        displayPrefix: key.body.key.displayPrefix,
      },
    });
    expect(JSON.stringify(created)).not.toContain(key.body.secret);
    expect((await root.post(`/api/admin/keys/${id}/revoke`, undefined, from(ROOT))).status).toBe(200);
    const e = await theEvent('key.revoke', id);
    expect(e).toMatchObject({
      ...byRoot(),
      before: { ownerId: ids.alice, name: 'alice key', status: 'active' },
      after: { ownerId: ids.alice, status: 'revoked' },
    });
    expect(JSON.stringify(e)).not.toContain(key.body.secret);
  });

  it('a secret stored (its id and hint, never the value), then a configuration saved', async () => {
    const secret = await root.post(
      '/api/admin/config/secrets',
      {
        value: VENDOR_KEY,
        provider: { id: 'vendor', type: 'openai', base_url: 'https://api.vendor.example/v1' },
      },
      from(ROOT),
    );
    expect(secret.status).toBe(201);
    expect(await theEvent('config.secret.store', secret.body.id)).toMatchObject({
      ...byRoot(),
      after: {
        id: secret.body.id,
        hint: secret.body.hint,
        provider: 'vendor',
        origins: ['https://api.vendor.example'],
      },
    });
    const head = (await root.get('/api/admin/config')).body;
    const saved = await root.request(
      'PUT',
      '/api/admin/config',
      { base_version: head.version, document: head.document, comment: 'audited' },
      from(ROOT),
    );
    expect(saved.status).toBe(200);
    expect(await theEvent('config.save', String(saved.body.version))).toMatchObject({
      ...byRoot(),
      before: { version: head.version },
      after: { version: saved.body.version, comment: 'audited', document: head.document },
    });
  });
});

describe('browsing, export and the chain', () => {
  it('filters by actor and action family, a page at a time', async () => {
    const first = await token.get('/api/admin/audit?actor=ROOT@example.com&action=user&limit=2');
    expect(first.status).toBe(200);
    expect(first.body.events.map((e: Event) => e.action)).toEqual(['user.enable', 'user.disable']);
    const rest = await token.get(
      `/api/admin/audit?actor=root@example.com&action=user&limit=50&cursor=${first.body.next}`,
    );
    expect(rest.body.events.map((e: Event) => e.action)).toEqual(['user.role', 'user.role', 'user.create']);
    expect(rest.body.next).toBeNull();
    const bad = await token.get('/api/admin/audit?cursor=abc');
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('invalid_request');
  });

  it('exports every event as JSON lines, oldest first, with no secret in them', async () => {
    const res = await fetch(`${gw.consoleUrl}/api/admin/audit/export`, {
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/x-ndjson/);
    const text = await res.text();
    expect(text.endsWith('\n')).toBe(true);
    const lines = text
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as Event);
    const listed = await token.get('/api/admin/audit?limit=200');
    expect(lines.map((e) => e.id)).toEqual(listed.body.events.map((e: Event) => e.id).reverse());
    for (let i = 1; i < lines.length; i++) expect(lines[i].prevHash).toBe(lines[i - 1].hash);
    expect(text).not.toContain(VENDOR_KEY);
    expect(text).not.toContain(PASSWORD);
  });

  it("verifies the chain, and names the row after one removed behind the trigger's back", async () => {
    const ok = await token.get('/api/admin/audit/verify');
    expect(ok.status).toBe(200);
    expect(ok.body.chain).toMatchObject({ ok: true, fromGenesis: true, break: null });
    const rows = await gw.db.db.selectFrom('audit_events').select('id').orderBy('id').execute();
    expect(ok.body.chain.checked).toBe(rows.length);
    await gw.db.db.transaction().execute(async (trx) => {
      await sql`alter table audit_events disable trigger user`.execute(trx);
      await sql`delete from audit_events where id = ${rows[2]!.id}`.execute(trx);
      await sql`alter table audit_events enable trigger user`.execute(trx);
    });
    const broken = await token.get('/api/admin/audit/verify');
    expect(broken.body.chain).toMatchObject({
      ok: false,
      checked: 2,
      break: { id: rows[3]!.id, kind: 'unlinked' },
    });
  });
});
