import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { type INestApplication } from '@nestjs/common';
import { type Browser, chromium, type Locator, type Page } from 'playwright-core';
import { type GatewayConfigInput, readEnv } from '#libs/config';
import { parseConfig } from '#libs/gateway-config';
import { descriptorOf, PROVIDER_TYPES } from '#libs/providers';
import { createConsoleApp } from '../../apps/console/src/console.app.js';
import { ConsoleClient } from '../support/console-client.js';
import { createTestDatabase, type TestDatabase } from '../support/db.js';
import { testConfig } from '../support/gateway.js';
import { dropRedisPrefix, TEST_REDIS_URL, uniqueRedisPrefix } from '../support/redis.js';

// The provider form is rendered from what the console publishes (GET
// /api/admin/config/provider-types), not from a list in the web code: a bedrock entry shows its
// Region, switching type changes the fields and the credential choices, and a type the answer
// adds (a fixture, defined only here) gets its fields without any web change. The console runs
// alone (no router: live states answer 502) in Debian's Chromium, on real Redis and Postgres.

const ADMIN = { email: 'forms@example.com', password: 'forms-password-1234' };
const BOOTSTRAP = 'provider-form-e2e-bootstrap-token-0123456789';

/** A fixture type the console does not have: only the endpoint's answer (intercepted) names it. */
const FIXTURE = {
  type: 'fixture-cloud',
  label: 'Fixture cloud',
  settings: {
    type: 'object',
    properties: {
      zone: { type: 'string', title: 'Zone', description: 'Where the fixture runs.' },
      tier: { type: 'string', enum: ['small', 'large'], title: 'Tier' },
    },
    required: ['zone'],
  },
  baseUrlRequired: false,
  probePath: false,
  keys: { allowed: false, refusal: 'type fixture-cloud takes no key' },
  ambient: { short: 'Fixture identity', long: 'The fixture identity of the apps’ environment' },
  profile: true,
};

function config(): GatewayConfigInput {
  const base = testConfig('http://127.0.0.1:9');
  return {
    ...base,
    providers: [
      ...base.providers,
      { id: 'cloud', type: 'bedrock', region: 'us-east-1', models: ['mock-secret'] },
    ],
  };
}

let app: INestApplication;
let db: TestDatabase;
let prefix = '';
let url = '';
let browser: Browser;
let page: Page;
const pageErrors: string[] = [];

const dialogOf = (title: string | RegExp): Locator =>
  page.locator('dialog', { has: page.getByRole('heading', { name: title }) });

/** The credential select's option texts. */
const credentialChoices = (dialog: Locator): Promise<string[]> =>
  dialog.getByLabel('Credential', { exact: true }).locator('option').allTextContents();

beforeAll(async () => {
  db = await createTestDatabase('provider_form');
  prefix = uniqueRedisPrefix('provider_form');
  const env = readEnv({
    REDIS_URL: TEST_REDIS_URL,
    REDIS_PREFIX: prefix,
    DATABASE_URL: db.url,
    HOST: '127.0.0.1',
    CONSOLE_ADMIN_TOKEN: BOOTSTRAP,
    CONSOLE_ADMIN_EMAIL: ADMIN.email,
    CONSOLE_ADMIN_PASSWORD: ADMIN.password,
  });
  app = await createConsoleApp(env, parseConfig(config()));
  await app.listen(0, '127.0.0.1');
  url = (await app.getUrl()).replace('[::1]', '127.0.0.1');
  browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
  });
  page = await (await browser.newContext({ viewport: { width: 1440, height: 900 } })).newPage();
  page.setDefaultTimeout(10_000);
  page.on('pageerror', (err) => pageErrors.push(String(err)));
  page.on('console', (msg) => {
    // The router is not running (the live states answer 502), and the sign-in page asks for a
    // session first (401): the browser logs both as failed resources. Any other error counts.
    if (msg.type() === 'error' && !/status of (401|502)/.test(msg.text())) pageErrors.push(msg.text());
  });
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await app?.close();
  await db?.drop();
  if (prefix) await dropRedisPrefix(prefix, readEnv({ REDIS_URL: TEST_REDIS_URL }).redis);
});

describe('what the console publishes for its forms', () => {
  it('lists every provider type with its settings as JSON Schema, to readers only', async () => {
    const admin = new ConsoleClient(url, BOOTSTRAP);
    const res = await admin.get('/api/admin/config/provider-types');
    expect(res.status).toBe(200);
    const types = res.body.types as { type: string; keys: unknown }[];
    expect(types.map((t) => t.type)).toEqual(PROVIDER_TYPES);
    const bedrock = types.find((t) => t.type === 'bedrock');
    expect(bedrock).toMatchObject({
      label: descriptorOf('bedrock').label,
      settings: {
        properties: { region: { type: 'string', title: 'Region' }, control_plane_url: { format: 'uri' } },
        required: ['region'],
      },
      baseUrlRequired: false,
      probePath: false,
      keys: { allowed: true },
      ambient: descriptorOf('bedrock').ambient!.label,
    });
    expect(types.find((t) => t.type === 'vertex')?.keys).toEqual({
      allowed: false,
      refusal: (descriptorOf('vertex').keys as { refusal: string }).refusal,
    });
    expect((await new ConsoleClient(url).get('/api/admin/config/provider-types')).status).toBe(401);
  });

  it('serves the client setup: addresses and sample templates', async () => {
    const res = await new ConsoleClient(url, BOOTSTRAP).get('/api/client-setup');
    expect(res.status).toBe(200);
    expect(res.body.addresses.length).toBeGreaterThan(0);
    expect(res.body.snippets.map((s: { id: string }) => s.id)).toContain('curl');
  });
});

describe('the provider form, rendered from the provider types', () => {
  it('signs in and shows the connect panel filled from the client setup', async () => {
    await page.goto(`${url}/sign-in`);
    await page.getByLabel('Email').fill(ADMIN.email);
    await page.getByLabel('Password').fill(ADMIN.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(/\/keys$/);
    await page.getByRole('tab', { name: 'curl' }).click();
    const code = (await page.locator('.snippet pre code').textContent())!;
    // The gateway's address as the session gives it (the edge's, not the console's).
    const gateway = /^curl (\S+)\/v1\/chat\/completions/.exec(code)?.[1];
    expect(gateway).toMatch(/^http:\/\/[^{]+$/);
    expect(code).toContain('Bearer $GATEWAY_API_KEY');
    expect(code).toContain('"model": "MODEL_ID"');
    expect(code).not.toContain('{{');
    await expect(page.locator('.base-urls .copyable').first().textContent()).resolves.toContain(gateway);
  }, 30_000);

  it("lists a bedrock entry by its region and keyless credential, and its form shows the type's fields", async () => {
    await page.goto(`${url}/admin?tab=providers`);
    const row = page.locator('#providers-table tr[data-provider-id="cloud"]');
    await row.waitFor();
    const text = (await row.textContent())!;
    expect(text).toContain('Region us-east-1');
    expect(text).toContain(descriptorOf('bedrock').ambient!.label.short);

    await page.getByRole('button', { name: 'Edit provider cloud' }).click();
    const dialog = dialogOf('Edit provider cloud');
    const region = dialog.getByLabel('Region', { exact: true });
    await expect(region.inputValue()).resolves.toBe('us-east-1');
    await expect(region.evaluate((el) => (el as { required: boolean }).required)).resolves.toBe(true);
    await expect(dialog.getByLabel('Control plane URL').isVisible()).resolves.toBe(true);
    await expect(
      dialog.getByLabel('Base URL').evaluate((el) => (el as { required: boolean }).required),
    ).resolves.toBe(false);
    await expect(dialog.getByLabel('Probe path').isVisible()).resolves.toBe(false);
    await expect(credentialChoices(dialog)).resolves.toContain(descriptorOf('bedrock').ambient!.label.long);

    // Another type: its own fields, none of bedrock's; a type taking no key offers only its own credential.
    await dialog.getByLabel('Type', { exact: true }).selectOption('vertex');
    await expect(region.isVisible()).resolves.toBe(false);
    await expect(dialog.getByLabel('Project', { exact: true }).isVisible()).resolves.toBe(true);
    await expect(dialog.getByLabel('Location', { exact: true }).isVisible()).resolves.toBe(true);
    await expect(credentialChoices(dialog)).resolves.toEqual([descriptorOf('vertex').ambient!.label.long]);

    await dialog.getByLabel('Type', { exact: true }).selectOption('openai');
    await expect(dialog.getByLabel('Project', { exact: true }).isVisible()).resolves.toBe(false);
    await expect(
      dialog.getByLabel('Base URL').evaluate((el) => (el as { required: boolean }).required),
    ).resolves.toBe(true);
    await expect(credentialChoices(dialog)).resolves.toContain('A key in an environment variable');

    await dialog.getByLabel('Type', { exact: true }).selectOption('azure-openai');
    await dialog.getByText('Deployments', { exact: true }).waitFor();
    await expect(dialog.getByLabel('API version', { exact: true }).isVisible()).resolves.toBe(true);

    // Back to bedrock: the region is as it was; a change is kept in the draft's entry.
    await dialog.getByLabel('Type', { exact: true }).selectOption('bedrock');
    await expect(region.inputValue()).resolves.toBe('us-east-1');
    await region.fill('eu-central-1');
    await dialog.getByRole('button', { name: 'Keep changes' }).click();
    await dialog.waitFor({ state: 'detached' });
    // The table is drawn again from the draft after the dialog closes: wait for the new row.
    await row.filter({ hasText: 'Region eu-central-1' }).waitFor();
  }, 30_000);

  it('renders a type the answer adds with its fields, with no web change', async () => {
    await page.route('**/api/admin/config/provider-types', async (route) => {
      const answer = (await (await route.fetch()).json()) as { types: unknown[] };
      await route.fulfill({ json: { types: [...answer.types, FIXTURE] } });
    });
    // A new page load: the types are fetched once a load.
    await page.goto(`${url}/admin?tab=providers`);
    await page.getByRole('button', { name: 'Add provider' }).click();
    const dialog = dialogOf('Add provider');
    await dialog.getByLabel('Type', { exact: true }).selectOption('fixture-cloud');
    const zone = dialog.getByLabel('Zone', { exact: true });
    await expect(zone.isVisible()).resolves.toBe(true);
    await expect(zone.evaluate((el) => (el as { required: boolean }).required)).resolves.toBe(true);
    await expect(dialog.getByText('Where the fixture runs.').isVisible()).resolves.toBe(true);
    await expect(
      dialog.getByLabel('Tier', { exact: true }).locator('option').allTextContents(),
    ).resolves.toEqual(['(not set)', 'small', 'large']);
    await expect(credentialChoices(dialog)).resolves.toEqual([FIXTURE.ambient.long]);
    await expect(dialog.getByLabel('Probe path').isVisible()).resolves.toBe(false);
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await page.unroute('**/api/admin/config/provider-types');
  }, 30_000);

  it('had no script error or CSP violation', () => {
    expect(pageErrors).toEqual([]);
  });
});
