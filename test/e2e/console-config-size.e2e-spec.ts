import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { stringify as toYaml } from 'yaml';
import { CONFIG_DOCUMENT_BODY_LIMIT_BYTES } from '../../apps/console/src/http/body-limits.js';
import { type BareConsole, startBareConsole } from '../support/bare-console.js';
import { ConsoleClient } from '../support/console-client.js';

/**
 * A configuration of a large organisation's size: 1,000 models over 20 providers, each priced with
 * cache prices, in four groups. Its whole-document save, check and import used to be refused by the
 * console's 64 KiB body limit; they have a larger one of their own, and every other route keeps 64 KiB.
 */
const ADMIN_TOKEN = `admin-${randomBytes(12).toString('hex')}`;
let con: BareConsole;

beforeAll(async () => {
  con = await startBareConsole('config_size', ADMIN_TOKEN);
});
afterAll(async () => {
  await con?.close();
});

function largeDocument(): Record<string, unknown> {
  const ids = Array.from(
    { length: 1_000 },
    (_, i) => `vendor-model-family-${String(i).padStart(4, '0')}-2026-01-15`,
  );
  const providers = Array.from({ length: 20 }, (_, p) => ({
    id: `provider-${p}`,
    type: 'openai',
    base_url: `http://127.0.0.1:9/tenant-${p}/v1`,
    models: ids.slice(p * 50, p * 50 + 50),
  }));
  const models = ids.map((id) => ({
    id,
    owned_by: 'a vendor of the organisation',
    created: 1767225600,
    pricing: { input_per_million: 1.25, output_per_million: 10, cache_read_per_million: 0.125 },
  }));
  return {
    providers,
    models,
    groups: { default: ids, research: ids.slice(0, 500), support: ids.slice(500), small: ids.slice(0, 10) },
  };
}

describe('a 1,000-model configuration', () => {
  it('is checked, saved and imported whole; other routes keep the 64 KiB limit', async () => {
    const admin = con.bootstrap;
    const head = await admin.request('GET', '/api/admin/config');
    expect(head.status).toBe(200);
    const document = largeDocument();
    const json = JSON.stringify({ base_version: head.body.version, document });
    expect(json.length).toBeGreaterThan(64 * 1024);

    const check = await admin.request('POST', '/api/admin/config/validate', { document });
    expect(check.status).toBe(201);
    expect(check.body.ok).toBe(true);

    const saved = await admin.request('PUT', '/api/admin/config', undefined, { raw: json });
    expect(saved.status).toBe(200);
    expect(saved.body.version).toBe(head.body.version + 1);
    const after = await admin.request('GET', '/api/admin/config');
    expect(after.body.document.models).toHaveLength(1_000);

    // The same organisation as a gateway.yaml, with one price changed, imported as the next version.
    const models = (document.models as { pricing: object }[]).map((m, i) =>
      i === 0 ? { ...m, pricing: { input_per_million: 2, output_per_million: 20 } } : m,
    );
    const yaml = toYaml({ ...document, models });
    expect(yaml.length).toBeGreaterThan(64 * 1024);
    const imported = await admin.request('POST', '/api/admin/config/import', {
      base_version: saved.body.version,
      yaml,
    });
    expect([imported.status, imported.body.error]).toEqual([201, undefined]);
    const latest = await admin.request('GET', '/api/admin/config');
    expect(latest.body.version).toBe(saved.body.version + 1);
    expect(latest.body.document.models[0].pricing).toMatchObject({ input_per_million: 2 });

    // Bounded: a body over the larger limit is still a 413 there.
    const huge = await admin.request('POST', '/api/admin/config/validate', {
      document: { pad: 'p'.repeat(CONFIG_DOCUMENT_BODY_LIMIT_BYTES) },
    });
    expect(huge.status).toBe(413);
    expect(huge.body.error.code).toBe('payload_too_large');
    // Every other route, the secrets one beside them included, keeps the console's own limit.
    const secret = await admin.request('POST', '/api/admin/config/secrets', {
      provider: { id: 'provider-0', pad: 'p'.repeat(100_000) },
      value: 'sk-12345678',
    });
    expect(secret.status).toBe(413);
    const users = await admin.request('POST', '/api/admin/users', {
      email: 'a@example.com',
      pad: 'p'.repeat(100_000),
    });
    expect(users.status).toBe(413);
  }, 60_000);

  it('authenticates the caller before reading a large body: an anonymous one is refused, never buffered', async () => {
    const anonymous = new ConsoleClient(con.url);
    const pad = 'p'.repeat(CONFIG_DOCUMENT_BODY_LIMIT_BYTES + 1024);
    for (const [method, path] of [
      ['PUT', '/api/admin/config'],
      ['POST', '/api/admin/config/validate'],
      ['POST', '/api/admin/config/import'],
    ] as const) {
      // Over the limit and unauthenticated: 401, not 413, so no byte of the body was counted.
      const res = await anonymous.request(method, path, { pad });
      expect([method, path, res.status, res.body.error.code]).toEqual([method, path, 401, 'unauthenticated']);
    }
    const forged = new ConsoleClient(con.url, 'gwa_not-a-token');
    expect((await forged.request('PUT', '/api/admin/config', { pad })).status).toBe(401);
    // Signed in, but not allowed to change the configuration: 403, before the body as well.
    const token = await con.bootstrap.request('POST', '/api/admin/tokens', {
      name: 'reader',
      role: 'auditor',
      expiresInDays: 1,
    });
    const auditor = new ConsoleClient(con.url, token.body.secret);
    const refused = await auditor.request('PUT', '/api/admin/config', { pad });
    expect([refused.status, refused.body.error.code]).toEqual([403, 'forbidden']);
    // Five 4 MiB uploads the console drains after refusing them: seconds on a loaded CI machine.
  }, 60_000);
});
