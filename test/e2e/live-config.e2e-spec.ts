import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { parse as parseYaml } from 'yaml';
import { ConsoleClient } from '../support/console-client.js';
import { type Gateway, startGateway, testConfig, testModel } from '../support/gateway.js';

const ADMIN_TOKEN = `admin-${randomBytes(12).toString('hex')}`;
const VENDOR_KEY = `sk-vendor-${randomBytes(16).toString('hex')}`;
let gw: Gateway;
let admin: ConsoleClient;
let apiKey: string;

/** Every change below happens while this load runs: none of its requests may fail. */
const load = { running: true, sent: 0, failed: [] as string[] };

async function chat(model: string): Promise<Response> {
  return fetch(`${gw.edgeUrl}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model, messages: [{ role: 'user', content: 'hello' }] }),
  });
}

async function runLoad(): Promise<void> {
  while (load.running) {
    const res = await chat('mock-gpt');
    load.sent++;
    if (res.status !== 200) load.failed.push(`${res.status} ${await res.text()}`);
    else await res.arrayBuffer();
  }
}

async function listed(): Promise<string[]> {
  const res = await fetch(`${gw.edgeUrl}/v1/models`, { headers: { authorization: `Bearer ${apiKey}` } });
  return ((await res.json()) as { data: { id: string }[] }).data.map((m) => m.id);
}

/** Polls until `check` holds; returns how long it took. */
async function within(ms: number, check: () => Promise<boolean>): Promise<number> {
  const started = Date.now();
  while (!(await check())) {
    if (Date.now() - started > ms) throw new Error(`not within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
  return Date.now() - started;
}

async function head(): Promise<{
  version: number;
  document: {
    providers: unknown[];
    models: unknown[];
    groups: { default: string[]; [group: string]: string[] };
  };
}> {
  const res = await admin.request('GET', '/api/admin/config');
  expect(res.status).toBe(200);
  return res.body;
}

let loadDone: Promise<void>;

/**
 * Live within a second in production: each save's notice, or each app's 1 s check
 * (libs/config-store proves both). Bounded wider here for a loaded CI machine.
 */
const SETTLE_MS = 5_000;

beforeAll(async () => {
  gw = await startGateway('live_config', testConfig, {
    mocks: 2,
    env: {
      CONSOLE_ADMIN_TOKEN: ADMIN_TOKEN,
      GATEWAY_SECRET_KEYS: `k1:${randomBytes(32).toString('base64')}`,
    },
  });
  gw.mocks[1]!.setBehaviour({ requireApiKey: VENDOR_KEY });
  admin = new ConsoleClient(gw.consoleUrl, ADMIN_TOKEN);
  apiKey = (await gw.createKey()).raw;
  loadDone = runLoad();
}, 60_000);

afterAll(async () => {
  load.running = false;
  await loadDone;
  await gw.close();
});

describe('the configuration, changed live', () => {
  it('starts from the file, seeded as version 1, with every change after it a version', async () => {
    const h = await head();
    expect(h).toMatchObject({
      source: 'database',
      editable: true,
      version: 1,
      author: expect.stringMatching(/^file:/),
    });
    expect(h.document.groups.default).toEqual(['mock-gpt', 'mock-gpt-renamed']);
  });

  it('adds a vendor with a key entered once: the key is stored sealed, and a request reaches it as soon as it is saved', async () => {
    const secret = await admin.request('POST', '/api/admin/config/secrets', {
      value: VENDOR_KEY,
      provider: { id: 'new-vendor', type: 'openai', base_url: `${gw.mocks[1]!.url}/v1` },
    });
    expect(secret.status).toBe(201);
    expect(secret.body).toEqual({ id: expect.any(String), hint: `sk-...${VENDOR_KEY.slice(-4)}` });
    expect(JSON.stringify(secret.body)).not.toContain(VENDOR_KEY.slice(10, 30));

    const h = await head();
    const document = {
      ...h.document,
      providers: [
        ...h.document.providers!,
        {
          id: 'new-vendor',
          type: 'openai',
          base_url: `${gw.mocks[1]!.url}/v1`,
          api_key_secret: secret.body.id,
          models: ['new-model'],
        },
      ],
      models: [...h.document.models!, testModel('new-model')],
      groups: { ...h.document.groups, default: [...h.document.groups.default, 'new-model'] },
    };
    const saved = await admin.request('PUT', '/api/admin/config', {
      base_version: h.version,
      document,
      comment: 'new vendor',
    });
    expect(saved.status).toBe(200);
    expect(saved.body).toEqual({ version: h.version + 1, warnings: [] });

    await within(SETTLE_MS, async () => (await listed()).includes('new-model'));
    await within(SETTLE_MS, async () => (await chat('new-model')).status === 200);
    const seen = gw.mocks[1]!.requests.filter((r) => r.path === '/v1/chat/completions');
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.at(-1)!.headers.authorization).toBe(`Bearer ${VENDOR_KEY}`);

    // The API never gives the key back: only its id and hint.
    const after = await admin.request('GET', '/api/admin/config');
    expect(JSON.stringify(after.body)).not.toContain(VENDOR_KEY);
    expect(after.body.secrets).toEqual({ [secret.body.id]: secret.body.hint });
  });

  it("applies a price change to the next request's charge", async () => {
    const cost = async (): Promise<bigint> => {
      const res = await chat('new-model');
      expect(res.status).toBe(200);
      const row = await gw.logRow(res.headers.get('x-request-id')!);
      return BigInt(row.cost_nanos);
    };
    const before = await cost();
    const h = await head();
    const models = (h.document.models as { id: string; pricing: object }[]).map((m) =>
      m.id === 'new-model' ? { ...m, pricing: { input_per_million: 1000, output_per_million: 2000 } } : m,
    );
    const saved = await admin.request('PUT', '/api/admin/config', {
      base_version: h.version,
      document: { ...h.document, models },
    });
    expect(saved.status).toBe(200);
    await within(SETTLE_MS, async () => (await cost()) === before * 1000n);
  });

  it('drops a model removed from a group from /v1/models as soon as it is saved', async () => {
    const h = await head();
    const groups = {
      ...h.document.groups,
      default: h.document.groups.default.filter((m) => m !== 'mock-gpt-renamed'),
    };
    const saved = await admin.request('PUT', '/api/admin/config', {
      base_version: h.version,
      document: { ...h.document, groups },
    });
    expect(saved.status).toBe(200);
    await within(SETTLE_MS, async () => !(await listed()).includes('mock-gpt-renamed'));
    // Outside the key's group now: refused as any model the group does not allow.
    const res = await chat('mock-gpt-renamed');
    expect(res.status).toBe(403);
  });

  it('lists a model only while an enabled provider with its key serves it', async () => {
    const h = await head();
    const withOff = (enabled: boolean) => ({
      ...h.document,
      providers: [
        ...h.document.providers,
        { id: 'off', type: 'openai', base_url: `${gw.mocks[0]!.url}/v1`, enabled, models: ['off-model'] },
        {
          id: 'keyless',
          type: 'openai',
          base_url: `${gw.mocks[0]!.url}/v1`,
          api_key_env: 'NOT_SET_ANYWHERE_API_KEY',
          models: ['keyless-model'],
        },
      ],
      models: [...h.document.models, testModel('off-model'), testModel('keyless-model')],
      groups: { ...h.document.groups, default: [...h.document.groups.default, 'off-model', 'keyless-model'] },
    });
    const off = await admin.request('PUT', '/api/admin/config', {
      base_version: h.version,
      document: withOff(false),
      acknowledge_warnings: true,
    });
    expect(off.status).toBe(200);
    await within(SETTLE_MS, async () => {
      const ids = await listed();
      return ids.includes('new-model') && !ids.includes('off-model') && !ids.includes('keyless-model');
    });
    const on = await admin.request('PUT', '/api/admin/config', {
      base_version: off.body.version,
      document: withOff(true),
    });
    expect(on.status).toBe(200);
    await within(SETTLE_MS, async () => (await listed()).includes('off-model'));
    expect(await listed()).not.toContain('keyless-model');
  });

  it('refuses the second of two changes made on the same version, and loses neither silently', async () => {
    const h = await head();
    const bump = (n: number) => ({
      base_version: h.version,
      document: {
        ...h.document,
        models: (h.document.models as { id: string }[]).map((m) =>
          m.id === 'mock-secret' ? { ...m, created: n } : m,
        ),
      },
    });
    const [a, b] = await Promise.all([
      admin.request('PUT', '/api/admin/config', bump(11)),
      admin.request('PUT', '/api/admin/config', bump(22)),
    ]);
    expect([a.status, b.status].sort()).toEqual([200, 409]);
    const lost = a.status === 409 ? a : b;
    expect(lost.body.error).toMatchObject({
      code: 'conflict',
      message: expect.stringMatching(/changed since version/),
    });
    expect((await head()).version).toBe(h.version + 1);
  });

  it('refuses a bad change naming the field, and a group left with nothing to serve unless acknowledged', async () => {
    const h = await head();
    const badUrl = {
      ...h.document,
      providers: (h.document.providers as { id: string }[]).map((p) =>
        p.id === 'new-vendor' ? { ...p, base_url: 'ftp://x' } : p,
      ),
    };
    const bad = await admin.request('PUT', '/api/admin/config', {
      base_version: h.version,
      document: badUrl,
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toMatch(/providers\[\d\]\.base_url/);
    const checked = await admin.request('POST', '/api/admin/config/validate', { document: badUrl });
    expect(checked.body).toMatchObject({
      ok: false,
      issues: [{ path: expect.stringMatching(/providers\[\d\]\.base_url/) }],
    });

    const orphan = { ...h.document, groups: { ...h.document.groups, other: ['new-model-missing'] } };
    const unknownModel = await admin.request('PUT', '/api/admin/config', {
      base_version: h.version,
      document: orphan,
    });
    expect(unknownModel.body.error.message).toMatch(/groups\.other\[0\]: unknown model new-model-missing/);

    // mock-secret is served by no provider: a group of it alone serves nothing.
    const empty = { ...h.document, groups: { ...h.document.groups, lonely: ['mock-secret'] } };
    const refused = await admin.request('PUT', '/api/admin/config', {
      base_version: h.version,
      document: empty,
    });
    expect(refused.status).toBe(400);
    expect(refused.body.error.message).toMatch(/group lonely would have no model/);
    const kept = await admin.request('PUT', '/api/admin/config', {
      base_version: h.version,
      document: empty,
      acknowledge_warnings: true,
    });
    expect(kept.status).toBe(200);
    expect(kept.body.warnings).toEqual([expect.stringMatching(/group lonely/)]);
  });

  it('exports the whole configuration as YAML that imports back to the same document', async () => {
    const h = await head();
    const exported = await fetch(`${gw.consoleUrl}/api/admin/config/export`, {
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    expect(exported.headers.get('content-type')).toMatch(/application\/yaml/);
    const yaml = await exported.text();
    expect(yaml).not.toContain(VENDOR_KEY);
    const doc = parseYaml(yaml) as Record<string, unknown>;
    expect(doc.router).toBeDefined(); // the file's settings are in it: a whole gateway.yaml
    const imported = await admin.request('POST', '/api/admin/config/import', {
      base_version: h.version,
      yaml,
    });
    expect(imported.status).toBe(201);
    expect(imported.body).toMatchObject({
      version: h.version + 1,
      ignored: expect.arrayContaining(['router', 'edge']),
    });
    const after = await head();
    expect(after.document).toEqual(h.document);
    const versions = await admin.request('GET', '/api/admin/config/versions?limit=2');
    expect(versions.body.versions[0]).toMatchObject({
      version: h.version + 1,
      source: 'import',
      author: 'admin token',
    });
  });

  it('a YAML nested thousands of levels deep: 400 saying so in the document terms, not the parser stack', async () => {
    const h = await head();
    const res = await admin.request('POST', '/api/admin/config/import', {
      base_version: h.version,
      yaml: `providers: ${'['.repeat(5000)}${']'.repeat(5000)}`,
    });
    expect(res.status).toBe(400);
    expect(res.body.error.message).toMatch(
      /^Invalid yaml: the document is nested too deeply to read \(at line 1, column \d+\)/,
    );
    expect(res.body.error.message).not.toMatch(/call stack/);
  });

  it('served every request of the load running through all of the above', async () => {
    expect(load.sent).toBeGreaterThan(10);
    expect(load.failed).toEqual([]);
  });
});
