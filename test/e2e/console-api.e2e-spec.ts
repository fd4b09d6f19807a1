import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { type INestApplication } from '@nestjs/common';
import OpenAI from 'openai';
import { createConsoleApp } from '../../apps/console/src/console.app.js';
import { AdminBootstrap } from '../../apps/console/src/setup/admin-bootstrap.service.js';
import { type GatewayConfig } from '#libs/config';
import { GracefulDrain } from '#libs/runtime';
import { ConsoleClient } from '../support/console-client.js';
import { eventually, type Gateway, startGateway, testConfig } from '../support/gateway.js';

const PASSWORD = 'correct horse battery staple';
const TOKEN = 'api-e2e-admin-token-0123456789';
/**
 * How long the edge may keep a resolved key without asking again: twice the default, as the key
 * revoked below was first used several tests earlier.
 */
const KEY_CACHE_TTL_MS = 120_000;

let gw: Gateway;
let app: INestApplication;
let url: string;
let root: ConsoleClient;
let dana: ConsoleClient;
let danaId: string;

beforeAll(async () => {
  gw = await startGateway('console-api', (mockUrl) => {
    const config = testConfig(mockUrl);
    return { ...config, edge: { ...config.edge, key_cache_ttl_ms: KEY_CACHE_TTL_MS } };
  });
  const config: GatewayConfig = { ...gw.config, console: { ...gw.config.console, router_url: gw.routerUrl } };
  app = await createConsoleApp({ ...gw.env, consoleAdminToken: TOKEN }, config);
  await app.listen(0, '127.0.0.1');
  url = (await app.getUrl()).replace('[::1]', '127.0.0.1');
}, 30_000);

afterAll(async () => {
  await app?.close();
  await gw?.close();
});

describe('first admin', () => {
  it('is created once through the one-time setup link, which then signs in', async () => {
    const anon = new ConsoleClient(url);
    expect((await anon.get('/api/setup/status')).body).toEqual({ needed: true });
    const link = await app.get(AdminBootstrap).run();
    expect(link).toMatch(/\/setup\?token=[\w-]{43}$/);
    const token = new URL(link!).searchParams.get('token')!;

    const forged = await anon.post('/api/setup', {
      token: 'x'.repeat(43),
      email: 'root@example.com',
      password: PASSWORD,
    });
    expect(forged.status).toBe(403);
    const weak = await anon.post('/api/setup', { token, email: 'root@example.com', password: 'short' });
    expect(weak.status).toBe(400);

    root = new ConsoleClient(url);
    const res = await root.post('/api/setup', { token, email: 'Root@Example.com', password: PASSWORD });
    expect(res.status).toBe(200);
    expect(res.body.user).toMatchObject({ email: 'root@example.com', role: 'admin' });
    expect(res.setSession).toBeTruthy();
    expect((await root.get('/api/session')).body.user.role).toBe('admin');

    expect((await anon.get('/api/setup/status')).body).toEqual({ needed: false });
    // Single use, and no second admin by setup even with a fresh token.
    expect(
      (await anon.post('/api/setup', { token, email: 'evil@example.com', password: PASSWORD })).status,
    ).toBe(403);
    expect(await app.get(AdminBootstrap).run()).toBeNull();
  });
});

describe('first admin from the environment', () => {
  it('is created at start when no user has that email, and only then', async () => {
    const start = async (password: string) => {
      const other = await createConsoleApp(
        { ...gw.env, consoleAdminEmail: 'Ops@Example.com', consoleAdminPassword: password },
        gw.config,
      );
      await other.listen(0, '127.0.0.1');
      return other;
    };
    const first = await start(PASSWORD);
    try {
      const c = new ConsoleClient((await first.getUrl()).replace('[::1]', '127.0.0.1'));
      expect((await c.signIn('ops@example.com', PASSWORD)).body.user.role).toBe('admin');
    } finally {
      await first.close();
    }
    // A later start with another password changes nothing: the env only seeds the first admin.
    const second = await start('another long password');
    try {
      const c = new ConsoleClient((await second.getUrl()).replace('[::1]', '127.0.0.1'));
      expect(
        (await c.post('/api/auth/sign-in', { email: 'ops@example.com', password: 'another long password' }))
          .status,
      ).toBe(401);
      expect((await c.signIn('ops@example.com', PASSWORD)).status).toBe(200);
    } finally {
      await second.close();
    }
  });
});

describe('admin users and groups', () => {
  it('creates a user who starts with the default grant and the default groups', async () => {
    const res = await root.post('/api/admin/users', { email: 'dana@example.com', password: PASSWORD });
    expect(res.status).toBe(201);
    expect(res.body.user).toMatchObject({
      email: 'dana@example.com',
      role: 'member',
      status: 'active',
      groups: null,
      effectiveGroups: ['default'],
      balanceCredits: gw.config.worker.default_grant_credits,
    });
    danaId = res.body.user.id;
    expect(
      (await root.post('/api/admin/users', { email: 'DANA@example.com', password: PASSWORD })).status,
    ).toBe(409);
    dana = new ConsoleClient(url);
    await dana.signIn('dana@example.com', PASSWORD);
  });

  it('grants credits through the quota ledger, visible as the balance', async () => {
    const res = await root.post(`/api/admin/users/${danaId}/grants`, { credits: 2.5, note: 'welcome' });
    expect(res.status).toBe(200);
    expect(res.body.balanceCredits).toBeCloseTo(gw.config.worker.default_grant_credits + 2.5, 9);
    expect((await dana.get('/api/usage')).body.balanceCredits).toBeCloseTo(res.body.balanceCredits, 9);
    expect((await root.post(`/api/admin/users/${danaId}/grants`, { credits: 0 })).status).toBe(400);
    const ghost = await root.post('/api/admin/users/00000000-0000-4000-8000-000000000000/grants', {
      credits: 1,
    });
    expect(ghost.status).toBe(404);
  });

  it('shows groups with their models: the caller’s, and every group to admins', async () => {
    expect((await dana.get('/api/groups')).body).toEqual({
      groups: [{ name: 'default', models: ['mock-gpt', 'mock-gpt-renamed'] }],
    });
    expect((await root.get('/api/admin/groups')).body.groups.map((g: { name: string }) => g.name)).toEqual([
      'default',
      'other',
    ]);
    expect((await root.patch(`/api/admin/users/${danaId}`, { groups: ['nope'] })).status).toBe(400);
  });

  it("shows the router's live provider view", async () => {
    const res = await root.get('/api/admin/providers');
    expect(res.status).toBe(200);
    expect(res.body.routerError).toBeNull();
    expect(res.body.providers).toEqual([
      expect.objectContaining({
        id: 'mock-openai',
        type: 'openai',
        models: ['mock-gpt', 'mock-gpt-renamed'],
      }),
    ]);
    expect(res.body.routes.models['mock-gpt'][0]).toMatchObject({ providerId: 'mock-openai' });
  });

  it('says so when the router is unreachable, instead of failing', async () => {
    const config = { ...gw.config, console: { ...gw.config.console, router_url: 'http://127.0.0.1:9' } };
    const other = await createConsoleApp({ ...gw.env, consoleAdminToken: TOKEN }, config);
    await other.listen(0, '127.0.0.1');
    try {
      const client = new ConsoleClient((await other.getUrl()).replace('[::1]', '127.0.0.1'), TOKEN);
      const res = await client.get('/api/admin/providers');
      expect(res.status).toBe(200);
      expect(res.body.routes).toBeNull();
      expect(res.body.routerError).toMatch(/unreachable/);
    } finally {
      await other.close();
    }
  });
});

describe('keys, the edge, logs and usage', () => {
  let keyId: string;
  let secret: string;
  /** Taken before the edge first resolved `secret`: its cached copy lives until this + KEY_CACHE_TTL_MS at least. */
  let secretWarmedAt: number;
  const requestIds: string[] = [];

  /**
   * Awaits `outcome` (not undefined) from the edge until half the key cache TTL past `warmedAt`,
   * taken before the edge first resolved the key: none of its cached copies (one filled later
   * lives longer) expires before then, so what is awaited is the pushed invalidation's doing,
   * never the cache's expiry. A bound no loaded machine comes near; the bench measures latency.
   */
  const whileCached = <T>(warmedAt: number, outcome: () => Promise<T | undefined>, what: string) =>
    eventually(
      outcome,
      warmedAt + KEY_CACHE_TTL_MS / 2 - Date.now(),
      `${what} while the key is still cached`,
    );

  it('creates a key whose secret is shown once and works on the edge', async () => {
    const expiresAt = new Date(Date.now() + 86_400_000).toISOString();
    const res = await dana.post('/api/keys', {
      name: 'laptop',
      group: 'default',
      expiresAt,
      spendLimitCredits: 5,
    });
    expect(res.status).toBe(201);
    secret = res.body.secret;
    keyId = res.body.key.id;
    expect(secret).toMatch(/^sk-[0-9A-Za-z]{48}$/);
    expect(res.body.key).toMatchObject({
      name: 'laptop',
      group: 'default',
      status: 'active',
      displayPrefix: `${secret.slice(0, 7)}...${secret.slice(-4)}`,
      expiresAt,
      spendLimitCredits: 5,
      spentCredits: 0,
      lastUsedAt: null,
    });
    const list = await dana.get('/api/keys');
    expect(list.body.keys).toHaveLength(1);
    expect(JSON.stringify(list.body)).not.toContain(secret.slice(7, -4));

    const client = new OpenAI({ baseURL: `${gw.edgeUrl}/v1`, apiKey: secret, maxRetries: 0 });
    secretWarmedAt = Date.now();
    const { data, response } = await client.chat.completions
      .create({ model: 'mock-gpt', messages: [{ role: 'user', content: 'hello console' }] })
      .withResponse();
    expect(data.choices[0]!.message.content).toMatch(/hello console/);
    requestIds.push(response.headers.get('x-request-id')!);
    const failed = await client.chat.completions
      .create({ model: 'mock-secret', messages: [{ role: 'user', content: 'not my group' }] })
      .withResponse()
      .catch((err: unknown) => err as InstanceType<typeof OpenAI.APIError>);
    expect(failed).toBeInstanceOf(OpenAI.APIError);
    requestIds.push((failed as InstanceType<typeof OpenAI.APIError>).headers!.get('x-request-id')!);
    for (const id of requestIds) await gw.logRow(id);
  });

  it('lists the requests newest first, filters them and pages with a cursor', async () => {
    const all = (await dana.get('/api/logs')).body;
    expect(all.items.map((i: { requestId: string }) => i.requestId)).toEqual([...requestIds].reverse());
    expect(all.nextCursor).toBeNull();
    const ok = all.items[1];
    expect(ok).toMatchObject({
      endpoint: '/v1/chat/completions',
      model: 'mock-gpt',
      providerId: 'mock-openai',
      status: 200,
      errorCode: null,
      keyId,
      stream: false,
    });
    expect(ok.inputTokens).toBeGreaterThan(0);
    expect(ok.costCredits).toBeGreaterThan(0);
    expect(ok).not.toHaveProperty('userId');

    const errors = (await dana.get('/api/logs?status=error')).body.items;
    expect(errors.map((i: { requestId: string }) => i.requestId)).toEqual([requestIds[1]]);
    expect(errors[0].status).toBeGreaterThanOrEqual(400);
    expect((await dana.get(`/api/logs?status=${errors[0].status}`)).body.items).toHaveLength(1);
    expect((await dana.get('/api/logs?status=ok')).body.items).toHaveLength(1);
    expect((await dana.get('/api/logs?model=mock-gpt')).body.items).toHaveLength(1);
    expect((await dana.get(`/api/logs?keyId=${keyId}`)).body.items).toHaveLength(2);
    const future = new Date(Date.now() + 3_600_000).toISOString();
    expect((await dana.get(`/api/logs?from=${future}`)).body.items).toEqual([]);

    const first = (await dana.get('/api/logs?limit=1')).body;
    expect(first.items).toHaveLength(1);
    expect(first.nextCursor).toEqual(expect.any(String));
    const second = (await dana.get(`/api/logs?limit=1&cursor=${first.nextCursor}`)).body;
    expect(second.items.map((i: { requestId: string }) => i.requestId)).toEqual([requestIds[0]]);
    expect(second.nextCursor).toBeNull();
  });

  it('shows one request in detail, with its attempts', async () => {
    const res = await dana.get(`/api/logs/${requestIds[0]}`);
    expect(res.status).toBe(200);
    expect(res.body.log).toMatchObject({
      requestId: requestIds[0],
      userId: danaId,
      groupName: 'default',
      upstreamModel: 'mock-gpt',
      attempts: [expect.objectContaining({ providerId: 'mock-openai', status: 200 })],
    });
    expect((await dana.get('/api/logs/req_unknown')).status).toBe(404);
  });

  it('sums usage per day and model', async () => {
    const res = await dana.get('/api/usage');
    expect(res.status).toBe(200);
    const today = new Date().toISOString().slice(0, 10);
    const gpt = res.body.days.find((d: { model: string }) => d.model === 'mock-gpt');
    expect(gpt).toMatchObject({ day: today, requests: 1 });
    expect(gpt.inputTokens).toBeGreaterThan(0);
    expect(gpt.outputTokens).toBeGreaterThan(0);
    expect(res.body.totals.requests).toBe(2);
    expect(res.body.spentCredits).toBeCloseTo(gpt.costCredits, 9);
    expect((await dana.get('/api/usage?from=2026-01-02&to=2026-01-01')).status).toBe(400);
    expect((await dana.get('/api/usage?from=2000-01-01&to=2026-01-01')).status).toBe(400);
  });

  it('revokes the key: the edge refuses it while it still caches it', async () => {
    const client = new OpenAI({ baseURL: `${gw.edgeUrl}/v1`, apiKey: secret, maxRetries: 0 });
    await client.models.list(); // cached on the edge (since its first use)
    const res = await dana.post(`/api/keys/${keyId}/revoke`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ key: { status: 'revoked' }, invalidation: 'announced' });
    const refused = await whileCached(
      secretWarmedAt,
      () =>
        client.models.list().then(
          () => undefined,
          (err: unknown) => err,
        ),
      'the edge to refuse the revoked key',
    );
    expect(refused).toBeInstanceOf(OpenAI.AuthenticationError);
    // Revoking again announces again (in case an earlier announcement was lost).
    const again = await dana.post(`/api/keys/${keyId}/revoke`);
    expect({ status: again.status, invalidation: again.body.invalidation }).toEqual({
      status: 200,
      invalidation: 'announced',
    });
  }, 90_000);

  it("stops a disabled user's keys on the edge, and enabling restores them", async () => {
    const created = await dana.post('/api/keys', { name: 'second', group: 'default' });
    const client = new OpenAI({ baseURL: `${gw.edgeUrl}/v1`, apiKey: created.body.secret, maxRetries: 0 });
    const warmedAt = Date.now();
    await client.models.list();
    await root.patch(`/api/admin/users/${danaId}`, { status: 'disabled' });
    await whileCached(
      warmedAt,
      () =>
        client.models.list().then(
          () => undefined,
          (err: unknown) => err,
        ),
      "the edge to refuse a disabled user's key",
    );
    // The refusal's record is cached too (filled after warmedAt): only the announcement lifts it.
    await root.patch(`/api/admin/users/${danaId}`, { status: 'active' });
    await whileCached(
      warmedAt,
      () =>
        client.models.list().then(
          () => true,
          () => undefined,
        ),
      'the edge to accept the key again',
    );
  }, 90_000);

  it('creates a key with its own rate limit, which the edge enforces', async () => {
    await dana.signIn('dana@example.com', PASSWORD); // disabling above ended her session
    const res = await dana.post('/api/keys', { name: 'limited', group: 'default', rpmLimit: 1 });
    expect(res.status).toBe(201);
    expect(res.body.key).toMatchObject({ rpmLimit: 1, tpmLimit: null });
    expect((await dana.post('/api/keys', { name: 'bad', group: 'default', rpmLimit: 0 })).status).toBe(400);
    const client = new OpenAI({ baseURL: `${gw.edgeUrl}/v1`, apiKey: res.body.secret, maxRetries: 0 });
    const ask = () =>
      client.chat.completions.create({ model: 'mock-gpt', messages: [{ role: 'user', content: 'hi' }] });
    await ask();
    await expect(ask()).rejects.toBeInstanceOf(OpenAI.RateLimitError);
    await dana.post(`/api/keys/${res.body.key.id}/revoke`);
  });

  it('lets admins revoke any key', async () => {
    const keys = (await root.get(`/api/admin/keys?userId=${danaId}`)).body.keys;
    const active = keys.find((k: { status: string }) => k.status === 'active');
    expect(active).toMatchObject({ userEmail: 'dana@example.com', userId: danaId });
    expect((await root.post(`/api/admin/keys/${active.id}/revoke`)).body.key.status).toBe('revoked');
  });
});

describe('OpenAPI', () => {
  it('describes the API at /api/openapi.json and serves Swagger UI at /api/docs', async () => {
    const doc = (await new ConsoleClient(url).get('/api/openapi.json')).body;
    expect(doc.openapi).toMatch(/^3\./);
    for (const path of [
      '/api/auth/sign-in',
      '/api/keys',
      '/api/keys/{id}/revoke',
      '/api/logs',
      '/api/admin/users',
    ])
      expect(doc.paths).toHaveProperty([path]);
    // The API alone: not /metrics, which every app serves for Prometheus.
    expect(Object.keys(doc.paths).filter((path) => !path.startsWith('/api/'))).toEqual([]);
    expect(
      doc.paths['/api/keys'].post.requestBody.content['application/json'].schema.properties,
    ).toHaveProperty('spendLimitCredits');
    expect(doc.paths['/api/keys'].get.security).toEqual(
      expect.arrayContaining([{ cookie: [] }, { bearer: [] }]),
    );
    const page = await fetch(`${url}/api/docs`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('swagger-ui-bundle.js');
    const bundle = await fetch(`${url}/api/docs/swagger-ui-bundle.js`);
    expect(bundle.status).toBe(200);
    expect(bundle.headers.get('content-type')).toMatch(/javascript/);
    expect((await fetch(`${url}/api/docs/package.json`)).status).toBe(404);
  });
});

describe('health', () => {
  it('is ready while Redis and Postgres answer, and not once it begins to stop', async () => {
    const ready = await fetch(`${url}/readyz`);
    expect([ready.status, await ready.json()]).toEqual([200, { ready: true, redis: true, postgres: true }]);
    // What runMain does on SIGTERM, before the modules wind down.
    const drain = app.get(GracefulDrain);
    drain.beginDraining();
    try {
      const stopping = await fetch(`${url}/readyz`);
      expect([stopping.status, await stopping.json()]).toEqual([503, { ready: false, draining: true }]);
    } finally {
      drain.draining = false;
    }
  });
});
