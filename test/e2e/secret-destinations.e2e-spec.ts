import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { type AddressInfo } from 'node:net';
import { stringify as toYaml } from 'yaml';
import { MOCK_AWS_CREDENTIAL } from '#libs/testing';
import { ConsoleClient } from '../support/console-client.js';
import { type Gateway, startGateway, testConfig, testModel } from '../support/gateway.js';

/**
 * Issue 31: no role can make the gateway send a secret anywhere it was not saved for. An
 * operator (and a member, and an admin where the rule is for everyone) tries every way the
 * console takes an address (a provider test, a saved provider, an import) with every credential
 * the gateway holds: its own environment, a key an admin stored, a provider key variable, its
 * cloud identity. A server of the attacker's records everything it receives: at the end it has
 * received none of them.
 */
const ADMIN_TOKEN = `admin-${randomBytes(12).toString('hex')}`;
const KEK = `k1:${randomBytes(32).toString('base64')}`;
const VENDOR_KEY = `sk-vendor-${randomBytes(16).toString('hex')}`;
const ENV_KEY = `sk-env-${randomBytes(16).toString('hex')}`;
const OWN_KEY = `sk-own-${randomBytes(16).toString('hex')}`;

interface Caught {
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
}

/** An HTTP server that records every request; `echo` answers 401 repeating the Authorization header late in its message. */
async function catcher(echo = false): Promise<{ server: Server; url: string; caught: Caught[] }> {
  const caught: Caught[] = [];
  const server = createServer((req, res) => {
    caught.push({ path: req.url ?? '', headers: req.headers });
    req.resume();
    const message = `${'x'.repeat(250)} you sent ${req.headers.authorization ?? ''}`;
    res.writeHead(echo ? 401 : 200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(echo ? { error: { message, type: 'invalid_request_error' } } : { data: [] }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, caught };
}

let gw: Gateway;
let admin: ConsoleClient;
let operator: ConsoleClient;
let member: ConsoleClient;
let teamAdmin: ConsoleClient;
let attacker: Awaited<ReturnType<typeof catcher>>;
let echo: Awaited<ReturnType<typeof catcher>>;
let storedId: string;

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the API's JSON, as tests read it
type Json = any;

const PASSWORD = 'a long destinations passphrase';

/** A signed-in member; `teamAdmin`: the admin of a team too. */
async function memberSession(email: string, teamAdmin: boolean): Promise<ConsoleClient> {
  const created = await admin.request('POST', '/api/admin/users', { email, password: PASSWORD });
  expect(created.status).toBe(201);
  if (teamAdmin) {
    const team = await admin.request('POST', '/api/admin/teams', {
      name: `team of ${email}`,
      groups: ['default'],
    });
    const joined = await admin.request('POST', `/api/admin/teams/${team.body.team.id}/members`, {
      userId: created.body.user.id,
      admin: true,
    });
    expect(joined.status).toBeLessThan(300);
  }
  const session = new ConsoleClient(gw.consoleUrl);
  expect((await session.signIn(email, PASSWORD)).status).toBe(200);
  return session;
}

async function tokenOf(role: string): Promise<ConsoleClient> {
  const res = await admin.request('POST', '/api/admin/tokens', {
    name: `${role} token`,
    role,
    expiresInDays: 1,
  });
  expect(res.status).toBe(201);
  return new ConsoleClient(gw.consoleUrl, res.body.secret);
}

async function head(): Promise<{ version: number; document: Json }> {
  const res = await admin.request('GET', '/api/admin/config');
  expect(res.status).toBe(200);
  return res.body;
}

/** The newest document with `provider` added (serving its own model), or replacing the one of its id. */
function withProvider(document: Json, provider: Json): Json {
  const others = (document.providers as Json[]).filter((p) => p.id !== provider.id);
  const model = provider.models[0];
  const models = (document.models as Json[]).some((m) => m.id === model)
    ? document.models
    : [...document.models, testModel(model)];
  return { ...document, providers: [...others, provider], models };
}

async function save(client: ConsoleClient, provider: Json) {
  const h = await head();
  return client.request('PUT', '/api/admin/config', {
    base_version: h.version,
    document: withProvider(h.document, provider),
    acknowledge_warnings: true,
  });
}

const test = (client: ConsoleClient, provider: Json, key?: string) =>
  client.request('POST', '/api/admin/config/providers/test', { provider, ...(key && { key }) });

const vendor = (extra: Json = {}) => ({
  id: 'vendor',
  type: 'openai',
  base_url: `${gw.mocks[1]!.url}/v1`,
  api_key_secret: storedId,
  models: ['vendor-model'],
  ...extra,
});

beforeAll(async () => {
  attacker = await catcher();
  echo = await catcher(true);
  gw = await startGateway('secret_destinations', testConfig, {
    mocks: 2,
    env: {
      CONSOLE_ADMIN_TOKEN: ADMIN_TOKEN,
      GATEWAY_SECRET_KEYS: KEK,
      VENDOR_API_KEY: ENV_KEY,
      AWS_ACCESS_KEY_ID: MOCK_AWS_CREDENTIAL.accessKeyId,
      AWS_SECRET_ACCESS_KEY: MOCK_AWS_CREDENTIAL.secretAccessKey,
    },
  });
  gw.mocks[1]!.setBehaviour({ requireApiKey: VENDOR_KEY });
  admin = new ConsoleClient(gw.consoleUrl, ADMIN_TOKEN);
  operator = await tokenOf('operator');
  member = await memberSession('member@example.com', false);
  teamAdmin = await memberSession('team-admin@example.com', true);
  const stored = await admin.request('POST', '/api/admin/config/secrets', {
    value: VENDOR_KEY,
    provider: { id: 'vendor', type: 'openai', base_url: `${gw.mocks[1]!.url}/v1` },
  });
  expect(stored.status).toBe(201);
  storedId = stored.body.id;
  expect((await save(admin, vendor())).status).toBe(200);
}, 60_000);

afterAll(async () => {
  await gw?.close();
  for (const c of [attacker, echo]) await new Promise((resolve) => c?.server.close(resolve));
});

describe("the gateway's own environment is not configuration's to read", () => {
  it.each(['CONSOLE_ADMIN_TOKEN', 'DATABASE_URL', 'GATEWAY_SECRET_KEYS', 'PATH'])(
    'api_key_env %s: refused to an operator and to an admin, in a test and in a save, naming the rule',
    async (name) => {
      const provider = {
        id: 'evil',
        type: 'openai',
        base_url: `${attacker.url}/v1`,
        api_key_env: name,
        models: ['m'],
      };
      for (const client of [operator, admin]) {
        const tried = await test(client, provider);
        expect(tried.status).toBe(403);
        expect(tried.body.error.message).toContain(
          `${name} is one of the gateway's own settings, never a provider key`,
        );
        const saved = await save(client, provider);
        expect(saved.status).toBe(400);
        expect(saved.body.error.message).toContain(`${name} is one of the gateway's own settings`);
      }
    },
  );

  it('a declared provider key variable: only an admin may name it', async () => {
    const provider = {
      id: 'evil',
      type: 'openai',
      base_url: `${attacker.url}/v1`,
      api_key_env: 'VENDOR_API_KEY',
      models: ['m'],
    };
    const tried = await test(operator, provider);
    expect(tried.status).toBe(403);
    expect(tried.body.error.message).toMatch(/only an admin may set or change api_key_env/);
    expect((await save(operator, provider)).status).toBe(400);
    const imported = await operator.request('POST', '/api/admin/config/import', {
      base_version: (await head()).version,
      yaml: toYaml(withProvider((await head()).document, provider)),
    });
    expect(imported.status).toBe(400);
    expect(imported.body.error.message).toMatch(/only an admin may set or change api_key_env/);
  });

  it('an undeclared variable is refused to admins too', async () => {
    const provider = {
      id: 'evil',
      type: 'openai',
      base_url: `${attacker.url}/v1`,
      api_key_env: 'HOSTNAME',
      models: ['m'],
    };
    const saved = await save(admin, provider);
    expect(saved.status).toBe(400);
    expect(saved.body.error.message).toContain(
      'HOSTNAME is not declared for provider keys (GATEWAY_PROVIDER_KEY_VARS:',
    );
  });
});

describe('a stored secret is bound to where it was saved for', () => {
  it('works where it was saved for', async () => {
    const res = await test(admin, vendor());
    expect(res.body).toMatchObject({ ok: true, status: 200 });
  });

  it('tested or saved at another address, or by another provider: refused, for admins too', async () => {
    for (const client of [operator, admin]) {
      for (const provider of [
        vendor({ base_url: `${attacker.url}/v1` }),
        vendor({ id: 'mine', base_url: `${attacker.url}/v1` }),
      ]) {
        const tried = await test(client, provider);
        expect(tried.status).toBe(403);
        expect(tried.body.error.message).toMatch(
          /the stored key cannot be used here: it was saved for provider vendor at http:\/\/127\.0\.0\.1:\d+, not .* enter the key again/,
        );
        const saved = await save(client, provider);
        expect(saved.status).toBe(400);
        expect(saved.body.error.message).toMatch(/enter the key again to use it there/);
      }
    }
  });

  it('only an admin re-points a provider that holds a stored secret, and only by entering the key again', async () => {
    const again = await operator.request('POST', '/api/admin/config/secrets', {
      value: OWN_KEY,
      provider: { id: 'vendor', type: 'openai', base_url: `${attacker.url}/v1` },
    });
    expect(again.status).toBe(201);
    const refused = await save(
      operator,
      vendor({ base_url: `${attacker.url}/v1`, api_key_secret: again.body.id }),
    );
    expect(refused.status).toBe(400);
    expect(refused.body.error.message).toMatch(
      /only an admin may point provider vendor, which holds a key or cloud identity, at another address/,
    );
  });
});

describe("the gateway's cloud identity", () => {
  it('an operator cannot have it signed for an address of theirs (test or save)', async () => {
    const provider = {
      id: 'br',
      type: 'bedrock',
      region: 'us-west-2',
      base_url: attacker.url,
      control_plane_url: attacker.url,
      models: ['m'],
    };
    const tried = await test(operator, provider);
    expect(tried.status).toBe(403);
    expect(tried.body.error.message).toMatch(
      /only an admin may add a provider that authenticates with the gateway's own AWS identity/,
    );
    expect((await save(operator, provider)).status).toBe(400);
  });
});

describe('what anyone may do with a key of their own', () => {
  it('an operator tests a key they typed at an address of theirs: that key goes, and nothing else', async () => {
    const res = await test(
      operator,
      { id: 'own', type: 'openai', base_url: `${attacker.url}/v1`, models: ['m'] },
      OWN_KEY,
    );
    expect(res.body).toMatchObject({ ok: true, status: 200 });
    expect(attacker.caught.at(-1)!.headers.authorization).toBe(`Bearer ${OWN_KEY}`);
  });

  it('members and team admins may not test, store a secret, save or import at all', async () => {
    const attempt = { ...vendor({ base_url: `${attacker.url}/v1` }), api_key_secret: undefined };
    for (const client of [member, teamAdmin]) {
      expect((await test(client, vendor({ base_url: `${attacker.url}/v1` }))).status).toBe(403);
      expect((await test(client, { ...attempt, api_key_env: 'VENDOR_API_KEY' })).status).toBe(403);
      const secret = await client.request('POST', '/api/admin/config/secrets', {
        value: OWN_KEY,
        provider: attempt,
      });
      expect(secret.status).toBe(403);
      expect((await save(client, vendor({ base_url: `${attacker.url}/v1` }))).status).toBe(403);
      const yaml = toYaml(withProvider((await head()).document, vendor({ base_url: `${attacker.url}/v1` })));
      expect(
        (await client.request('POST', '/api/admin/config/import', { base_version: 1, yaml })).status,
      ).toBe(403);
    }
  });
});

describe("the test's answer leaks nothing", () => {
  it('an upstream that echoes the key after 250 characters: no 8 characters of it come back', async () => {
    const bound = await admin.request('POST', '/api/admin/config/secrets', {
      value: VENDOR_KEY,
      provider: { id: 'echo', type: 'openai', base_url: `${echo.url}/v1` },
    });
    const res = await test(admin, {
      id: 'echo',
      type: 'openai',
      base_url: `${echo.url}/v1`,
      api_key_secret: bound.body.id,
      models: ['m'],
    });
    expect(res.body).toMatchObject({ ok: false, status: 401, error: expect.stringContaining('you sent') });
    expect(echo.caught.at(-1)!.headers.authorization).toBe(`Bearer ${VENDOR_KEY}`);
    const shown = JSON.stringify(res.body);
    for (let i = 0; i + 8 <= VENDOR_KEY.length; i++) expect(shown).not.toContain(VENDOR_KEY.slice(i, i + 8));
  });
});

describe('provider tests are audited and rate-limited', () => {
  it('who, which settings, the origin and the outcome, refusals included', async () => {
    const res = await admin.request('GET', '/api/admin/audit?action=config.provider.test&limit=200');
    expect(res.status).toBe(200);
    const events = res.body.events as Json[];
    const refused = events.find((e) =>
      e.after?.outcome?.refused?.includes('only an admin may set or change api_key_env'),
    );
    expect(refused).toMatchObject({
      target: { type: 'provider', id: 'evil' },
      after: {
        settings: { api_key_env: 'VENDOR_API_KEY', base_url: `${attacker.url}/v1` },
        origins: [attacker.url],
      },
    });
    const own = events.find((e) => e.target.id === 'own');
    expect(own.after).toMatchObject({
      origins: [attacker.url],
      outcome: { ok: true, status: 200 },
      settings: { key: expect.stringMatching(/^sk-own-\.\.\..{4}$/) },
    });
    expect(JSON.stringify(events)).not.toContain(OWN_KEY.slice(7, 20));
  });

  it('a save or import refused a credential is on the trail too, with the reason', async () => {
    const res = await admin.request('GET', '/api/admin/audit?action=config.save&limit=200');
    expect(res.status).toBe(200);
    const refused = (res.body.events as Json[]).filter((e) => e.outcome === 'refused');
    expect(refused.map((e) => e.reason)).toEqual(
      expect.arrayContaining([
        expect.stringContaining("CONSOLE_ADMIN_TOKEN is one of the gateway's own settings"),
        expect.stringContaining('only an admin may set or change api_key_env'),
        expect.stringContaining('enter the key again to use it there'),
      ]),
    );
    const imports = await admin.request('GET', '/api/admin/audit?action=config.import&limit=200');
    expect((imports.body.events as Json[]).some((e) => e.outcome === 'refused')).toBe(true);
  });

  it('at most 20 a minute per caller, then 429 with retry-after', async () => {
    const busy = await tokenOf('operator');
    const provider = { id: 'own', type: 'openai', base_url: `${attacker.url}/v1`, models: ['m'] };
    const statuses: number[] = [];
    for (let i = 0; i < 21; i++) statuses.push((await test(busy, provider, OWN_KEY)).status);
    expect(statuses.slice(0, 20).every((s) => s === 200)).toBe(true);
    const over = await test(busy, provider, OWN_KEY);
    expect(over.status).toBe(429);
    expect(Number(over.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(statuses[20]).toBe(429);
  });
});

describe('after every attempt', () => {
  it("the attacker's server received none of the gateway's secrets", async () => {
    const everything = JSON.stringify(attacker.caught);
    for (const secret of [
      ADMIN_TOKEN,
      KEK.slice(3),
      VENDOR_KEY,
      ENV_KEY,
      gw.env.databaseUrl,
      MOCK_AWS_CREDENTIAL.accessKeyId,
    ])
      expect(everything).not.toContain(secret);
    // What it did receive: only the operator's own key, from the tests that typed it.
    const auth = new Set(attacker.caught.map((c) => c.headers.authorization));
    expect([...auth]).toEqual([`Bearer ${OWN_KEY}`]);
  });
});
