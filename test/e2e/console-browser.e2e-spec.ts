import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdir } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import { type GatewayConfigInput } from '#libs/config';
import { insertRequestLogs } from '#libs/db';
import { createRedis, redisKeys } from '#libs/redis';
import { SetupTokens } from '../../apps/console/src/setup/setup-token.store.js';
import { requestLogJob } from '../support/db.js';
import { type Gateway, startGateway, testConfig } from '../support/gateway.js';

// The console's browser UI driven by Debian's Chromium against the real apps (edge, router, worker,
// console) on real Redis and Postgres, with the openai SDK as the client of the key it creates.
// Screenshots land in test-results/screenshots/ on every run; `npm run docs:screenshots` copies them
// into docs/images/ (the README shows console-keys.png), so a test run never dirties the tree.

const IMAGES = resolve(dirname(fileURLToPath(import.meta.url)), '../../test-results/screenshots');
const ADMIN = { email: 'admin@example.com', password: 'admin-password-1234' };
const USER = { email: 'dev@example.com', password: 'user-password-5678' };
const KEY_NAME = 'e2e laptop';
/** mock-gpt has a cache-read price but no cache-write prices: its writes fall back to the input price. */
const GPT_PRICES = { input: 1, output: 2, read: 0.25 };
const CACHE_READ = 800;
const CACHE_WRITE = 200;
const DAY_MS = 86_400_000;

function config(mockUrl: string): GatewayConfigInput {
  const base = testConfig(mockUrl);
  const gpt = {
    input_per_million: GPT_PRICES.input,
    output_per_million: GPT_PRICES.output,
    cache_read_per_million: GPT_PRICES.read,
  };
  return { ...base, models: base.models.map((m) => (m.id === 'mock-gpt' ? { ...m, pricing: gpt } : m)) };
}

let gw: Gateway;
let browser: Browser;
let context: BrowserContext;
let page: Page;
/** Shared along the flow: the secret shown once, and the requests made with it. */
let secret = '';
let requestId = '';
let cachedRequestId = '';
let setupToken = '';

beforeAll(async () => {
  gw = await startGateway('console-browser', config);
  // The console printed a one-time setup link at boot (no admin yet); issue one the same way.
  const redis = createRedis(gw.env.redis, { name: 'e2e-setup' });
  setupToken = await new SetupTokens(redis, redisKeys(gw.env.redisPrefix)).issue();
  redis.disconnect();
  await mkdir(IMAGES, { recursive: true });
  browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  context = await browser.newContext({ viewport: { width: 1280, height: 800 }, colorScheme: 'light' });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: gw.consoleUrl });
  page = await context.newPage();
  page.setDefaultTimeout(10_000);
  // A script error or a CSP violation in the console is a failure, not noise.
  page.on('pageerror', (err) => pageErrors.push(String(err)));
  page.on('console', (msg) => {
    if (msg.type() === 'error' && !/status of 40[13]/.test(msg.text())) pageErrors.push(msg.text());
  });
}, 60_000);

const pageErrors: string[] = [];

// Closing Chromium and five apps: each app drains before it exits, several seconds on a loaded CI machine.
afterAll(async () => {
  await browser?.close();
  await gw?.close();
}, 30_000);

const url = (path: string) => `${gw.consoleUrl}${path}`;
const sdk = (apiKey: string) => new OpenAI({ baseURL: `${gw.edgeUrl}/v1`, apiKey, maxRetries: 0 });
/** A displayed credit amount ("1,234.5678") as a number. */
const credits = (text: string | null) => Number(text!.replace(/,/g, ''));
/** The table's body rows as their cells' texts (the row header first). */
const cellsOf = async (rows: ReturnType<Page['locator']>) =>
  Promise.all((await rows.all()).map((tr) => tr.locator('th, td').allTextContents()));

async function signIn(who: { email: string; password: string }): Promise<void> {
  await page.goto(url('/'));
  await page.waitForURL(/\/sign-in/);
  await page.getByLabel('Email').fill(who.email);
  await page.getByLabel('Password').fill(who.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(/\/keys$/);
  await page.locator('#keys-table').waitFor();
}

async function signOut(): Promise<void> {
  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.waitForURL(/\/sign-in/);
}

describe('console in the browser', () => {
  it('first run: the setup link creates the first admin, once', async () => {
    const res = await page.goto(url('/logs'));
    expect(res!.headers()['content-security-policy']).toContain("script-src 'self'");
    expect(res!.headers()['cache-control']).toBe('no-store');
    await page.waitForURL(/\/sign-in\?next=%2Flogs$/);
    await page.getByText('no administrator exists yet').waitFor();

    await page.goto(url(`/setup?token=${setupToken}`));
    await page.getByLabel('Email').fill(ADMIN.email);
    await page.getByLabel('Password', { exact: true }).fill(ADMIN.password);
    await page.getByLabel('Repeat password').fill(ADMIN.password);
    await page.getByRole('button', { name: 'Create administrator' }).click();
    // Signed in as the new admin; the token left the address bar.
    await page.waitForURL(/\/keys$/);
    await page.getByRole('link', { name: 'Admin' }).waitFor();
    await signOut();

    await page.goto(url(`/setup?token=${setupToken}`));
    await page.getByRole('heading', { name: 'Setup is complete' }).waitFor();
    await page.goto(url('/sign-in'));
    await page.getByLabel('Email').fill(ADMIN.email);
    await page.getByLabel('Password').fill('not the password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').filter({ hasText: 'The email or password is not right' }).waitFor();
    await expect(page.getByText('no administrator exists yet').count()).resolves.toBe(0);
  }, 30_000);

  it('an admin adds a user; the user sees no Admin section and the admin API refuses them', async () => {
    await signIn(ADMIN);
    await page.getByRole('link', { name: 'Admin' }).click();
    await page.locator('#users-table').waitFor();
    await page.getByRole('button', { name: 'Add user' }).click();
    const dialog = page.locator('dialog');
    await dialog.getByLabel('Email').fill(USER.email);
    await dialog.getByLabel('Initial password').fill(USER.password);
    await dialog.getByRole('button', { name: 'Add user' }).click();
    await page.locator('#users-table tr', { hasText: USER.email }).waitFor();
    await dialog.waitFor({ state: 'detached' });
    await page.getByRole('link', { name: 'Providers' }).click();
    await page.locator('#providers-table tr[data-provider-id="mock-openai"]').waitFor();
    await signOut();

    await signIn(USER);
    await expect(page.getByRole('link', { name: 'Admin' }).count()).resolves.toBe(0);
    await page.goto(url('/admin'));
    await page.waitForURL(/\/keys$/);
    const adminApi = await page.request.get(url('/api/admin/users'));
    expect(adminApi.status()).toBe(403);
  }, 60_000);

  it('creates a key and shows its secret once: not in the table, not after a reload', async () => {
    await page.getByRole('button', { name: 'Create API key' }).click();
    const dialog = page.locator('dialog');
    await dialog.getByLabel('Name').fill(KEY_NAME);
    await dialog.getByLabel('Group').selectOption('default');
    await dialog.getByRole('button', { name: 'Create key' }).click();
    const field = dialog.locator('input.secret');
    await field.waitFor();
    secret = await field.inputValue();
    expect(secret).toMatch(/^sk-[A-Za-z0-9_-]{20,}$/);
    await expect(dialog.getByRole('alert').textContent()).resolves.toMatch(/shown only this once/);
    await expect(dialog.locator('pre').textContent()).resolves.toContain(secret);
    await dialog.getByRole('button', { name: 'Copy', exact: true }).click();
    await expect(page.evaluate<string>('navigator.clipboard.readText()')).resolves.toBe(secret);
    await page.screenshot({ path: resolve(IMAGES, 'console-keys.png') });

    await dialog.getByRole('button', { name: 'Done' }).click();
    await dialog.waitFor({ state: 'detached' });
    const row = page.locator('#keys-table tr', { hasText: KEY_NAME });
    await expect(row.locator('code').textContent()).resolves.toMatch(/^sk-.+/);
    await expect(row.textContent()).resolves.toContain('active');
    expect(await page.content()).not.toContain(secret);

    await page.reload();
    await page.locator('#keys-table tr', { hasText: KEY_NAME }).waitFor();
    expect(await page.content()).not.toContain(secret);
  }, 30_000);

  it('calls with the key show in Logs (filters, detail) and in Usage', async () => {
    const client = sdk(secret);
    const { data, response } = await client.chat.completions
      .create({ model: 'mock-gpt', messages: [{ role: 'user', content: 'Hello console' }] })
      .withResponse();
    expect(data.choices[0]!.message.content).toMatch(/Hello console/);
    requestId = response.headers.get('x-request-id')!;
    const streamed = await client.chat.completions
      .create({ model: 'mock-gpt', stream: true, messages: [{ role: 'user', content: 'Stream it' }] })
      .withResponse();
    for await (const _chunk of streamed.data);
    // A model outside the key's group: refused, and logged as an error.
    const refused = await client.chat.completions
      .create({ model: 'mock-secret', messages: [{ role: 'user', content: 'Not mine' }] })
      .then(
        () => null,
        (err: unknown) => err as InstanceType<typeof OpenAI.APIError>,
      );
    expect(refused?.status).toBeGreaterThanOrEqual(400);
    const [logged, loggedStream, loggedError] = await Promise.all([
      gw.logRow(requestId),
      gw.logRow(streamed.response.headers.get('x-request-id')!),
      gw.logRow(refused!.headers!.get('x-request-id')!),
    ]);

    await page.getByRole('link', { name: 'Logs' }).click();
    const rows = page.locator('#logs-table tbody tr');
    const requestIds = async () =>
      Promise.all((await rows.all()).map((tr) => tr.getAttribute('data-request-id')));
    const row = page.locator(`#logs-table tr[data-request-id="${requestId}"]`);
    await row.waitFor();
    // Newest first.
    await expect(requestIds()).resolves.toEqual([
      loggedError.request_id,
      loggedStream.request_id,
      logged.request_id,
    ]);
    await expect(row.textContent()).resolves.toContain('mock-gpt');
    await expect(row.textContent()).resolves.toContain(KEY_NAME);
    await page.screenshot({ path: resolve(IMAGES, 'console-logs.png') });

    await page.getByLabel('Status').selectOption('error');
    await page.waitForURL(/status=error/);
    await page
      .locator(`#logs-table tr[data-request-id="${logged.request_id}"]`)
      .waitFor({ state: 'detached' });
    await expect(requestIds()).resolves.toEqual([loggedError.request_id]);
    await page.getByLabel('Status').selectOption('');
    await row.waitFor();

    await row.getByRole('link').click();
    await page.waitForURL(new RegExp(`/logs/${requestId}$`));
    const detail = page.locator('#log-detail');
    await detail.waitFor();
    const text = (await detail.textContent())!;
    for (const expected of [requestId, '/v1/chat/completions', 'mock-gpt', 'mock-openai', KEY_NAME, '200'])
      expect(text).toContain(expected);
    expect(text).toContain(String(logged.input_tokens));
    expect(text).toContain(String(logged.output_tokens));
    await expect(page.locator('#attempts-table tbody tr').count()).resolves.toBeGreaterThanOrEqual(1);
    await expect(page.locator('#attempts-table tbody').textContent()).resolves.toContain('mock-openai');

    await page.getByRole('link', { name: 'Usage' }).click();
    await page.locator('svg.chart rect').first().waitFor();
    await expect(page.locator('#stat-requests').textContent()).resolves.toMatch(/^Requests\s*3$/);
    await expect(page.locator('#stat-spent').textContent()).resolves.not.toMatch(/^\D*0\.00 credits/);
    const byModel = page
      .locator('table', { hasText: 'By model' })
      .locator('tbody tr', { hasText: 'mock-gpt' });
    const cells = await byModel.locator('td').allTextContents();
    const tokens = (a: unknown, b: unknown) => (Number(a) + Number(b)).toLocaleString('en-US');
    expect(cells.slice(0, 3)).toEqual([
      '2',
      tokens(logged.input_tokens, loggedStream.input_tokens),
      tokens(logged.output_tokens, loggedStream.output_tokens),
    ]);
    await page.screenshot({ path: resolve(IMAGES, 'console-usage.png'), fullPage: true });
  }, 30_000);

  it("a translated, cached request's detail shows its translation adjustments and cost by component", async () => {
    // A Messages client towards an OpenAI-served model: context_management is dropped as a hint.
    const anthropic = new Anthropic({ baseURL: gw.edgeUrl, apiKey: secret, maxRetries: 0 });
    gw.mock.setBehaviour({ cachedTokens: CACHE_READ, cacheWrite5mTokens: CACHE_WRITE });
    const { response } = await anthropic.beta.messages
      .create({
        model: 'mock-gpt',
        max_tokens: 64,
        messages: [{ role: 'user', content: 'word '.repeat(1000) }],
        context_management: { edits: [{ type: 'clear_tool_uses_20250919' }] },
      })
      .withResponse()
      .finally(() => gw.mock.reset());
    expect(response.headers.get('x-gateway-adjustments')).toContain('dropped context_management');
    cachedRequestId = response.headers.get('x-request-id')!;
    const row = await gw.logRow(cachedRequestId);
    expect(row).toMatchObject({ cached_tokens: CACHE_READ, cache_write_5m_tokens: CACHE_WRITE });

    await page.getByRole('link', { name: 'Logs' }).click();
    await page.locator(`#logs-table tr[data-request-id="${cachedRequestId}"]`).getByRole('link').click();
    await page.waitForURL(new RegExp(`/logs/${cachedRequestId}$`));
    await page.locator('#log-detail', { hasText: cachedRequestId }).waitFor();
    const adjustments = await page.locator('#adjustments-list li').allTextContents();
    expect(adjustments).toEqual(row.adjustments);
    expect(adjustments).toContain('dropped context_management');

    const uncached = row.input_tokens! - CACHE_READ - CACHE_WRITE;
    const components = await cellsOf(page.locator('#cost-components tbody tr'));
    // [label, tokens, price per million]; a price the model does not set is marked (fallback rule).
    expect(components.map((c) => c.slice(0, 3))).toEqual([
      ['Input (uncached)', uncached.toLocaleString('en-US'), '1'],
      ['Cache reads', String(CACHE_READ), '0.25'],
      ['Cache writes (5 min) *', String(CACHE_WRITE), '1'],
      ['Cache writes (1 h) *', '0', '1'],
      ['Output', row.output_tokens!.toLocaleString('en-US'), '2'],
    ]);
    const { input, read, output } = GPT_PRICES;
    const expected = [
      [uncached, input],
      [CACHE_READ, read],
      [CACHE_WRITE, input],
      [0, input],
      [row.output_tokens!, output],
    ].map(([n, price]) => (n! * price!) / 1e6);
    expect(components.map((c) => credits(c[3]!))).toEqual(expected.map((v) => expect.closeTo(v, 9)));
    // The components add up to the charge.
    const sum = components.reduce((n, c) => n + credits(c[3]!), 0);
    expect(sum).toBeCloseTo(Number(row.cost_nanos) / 1e9, 9);
    await expect(page.locator('#cost-components').locator('xpath=..').textContent()).resolves.toContain(
      '* The model sets no price for it: charged at the input price (fallback rule).',
    );
    await page.screenshot({ path: resolve(IMAGES, 'console-log-detail.png'), fullPage: true });
  }, 30_000);

  it('Usage shows the cache hit rate and what caching saved', async () => {
    const { key_id: keyId } = await gw.logRow(cachedRequestId);
    const rows = await gw.db.db
      .selectFrom('request_logs')
      .select(['input_tokens', 'cached_tokens'])
      .where('key_id', '=', keyId)
      .where('model', '=', 'mock-gpt')
      .execute();
    expect(rows).toHaveLength(3);
    const input = rows.reduce((n, r) => n + (r.input_tokens ?? 0), 0);
    const cached = rows.reduce((n, r) => n + (r.cached_tokens ?? 0), 0);
    // Reads at 0.25 instead of 1; the writes fell back to the input price, so they saved nothing.
    const saved = (CACHE_READ * (GPT_PRICES.input - GPT_PRICES.read)) / 1e6;

    await page.getByRole('link', { name: 'Usage' }).click();
    await page.locator('svg.chart rect').first().waitFor();
    const byModel = page
      .locator('table', { hasText: 'By model' })
      .locator('tbody tr', { hasText: 'mock-gpt' });
    const [, requests, , , hitRate, savings] = await byModel.locator('th, td').allTextContents();
    expect(requests).toBe('3');
    expect(hitRate).toBe(`${((cached / input) * 100).toFixed(1)} %`);
    expect(credits(savings!)).toBeCloseTo(saved, 9);
    const byDay = page.locator('table', { hasText: 'By day' }).locator('tbody tr', { hasText: 'mock-gpt' });
    await expect(byDay.locator('td').nth(3).textContent()).resolves.toBe(hitRate);
    await expect(byDay.locator('td').nth(4).textContent()).resolves.toBe(savings);
  }, 30_000);

  it('the Budgets dialog adds a daily budget to the key (spent, left, next reset) and removes it', async () => {
    const { key_id: keyId } = await gw.logRow(cachedRequestId);
    const costs = await gw.db.db
      .selectFrom('request_logs')
      .select('cost_nanos')
      .where('key_id', '=', keyId)
      .execute();
    const spent = costs.reduce((n, r) => n + Number(r.cost_nanos), 0) / 1e9;
    expect(spent).toBeGreaterThan(0);

    await page.getByRole('link', { name: 'API keys' }).click();
    await page.getByRole('button', { name: `Budgets of key ${KEY_NAME}` }).click();
    const dialog = page.locator('dialog');
    await dialog.getByRole('heading', { name: `Budgets of “${KEY_NAME}”` }).waitFor();
    await dialog.getByText('No budget: only the balance limits spending.').waitFor();
    await dialog.getByLabel('Period').selectOption('day');
    await dialog.getByLabel('Window').selectOption('calendar_utc');
    await dialog.getByLabel('Limit (credits)').fill('5');
    const midnight = new Date(Math.ceil((Date.now() + 1) / DAY_MS) * DAY_MS).toISOString();
    await dialog.getByRole('button', { name: 'Add budget' }).click();
    const row = dialog.locator('#budgets-table tbody tr[data-budget-id]');
    await row.waitFor();
    const [what, limit, spentText, leftText, resets] = await row.locator('th, td').allTextContents();
    expect(what).toBe('Daily · all models');
    expect(limit).toBe('5.00');
    expect(credits(spentText!)).toBeCloseTo(spent, 6);
    expect(credits(leftText!)).toBeCloseTo(5 - spent, 2);
    expect(resets).toMatch(new RegExp(`^resets .+ \\(${midnight.slice(0, 16)}Z\\)$`));
    const listed = await (await page.request.get(url(`/api/keys/${keyId}/budgets`))).json();
    expect(listed.budgets).toMatchObject([{ period: 'day', limitCredits: 5, resetsAt: midnight }]);
    await page.screenshot({ path: resolve(IMAGES, 'console-budgets.png') });

    await row.getByRole('button', { name: 'Remove' }).click();
    await row.waitFor({ state: 'detached' });
    await dialog.getByText('No budget: only the balance limits spending.').waitFor();
    const after = await (await page.request.get(url(`/api/keys/${keyId}/budgets`))).json();
    expect(after).toEqual({ budgets: [], nextCursor: null });
    await dialog.getByRole('button', { name: 'Close', exact: true }).last().click();
    await dialog.waitFor({ state: 'detached' });
  }, 30_000);

  it('revokes the key after a confirmation; the next SDK call gets 401 invalid_api_key', async () => {
    await page.getByRole('link', { name: 'API keys' }).click();
    await page.getByRole('button', { name: `Revoke key ${KEY_NAME}` }).click();
    await page.locator('dialog').getByRole('button', { name: 'Revoke key' }).click();
    await page
      .locator('#keys-table tr', { hasText: KEY_NAME })
      .locator('.badge', { hasText: 'revoked' })
      .waitFor();

    const refused = await sdk(secret)
      .chat.completions.create({ model: 'mock-gpt', messages: [{ role: 'user', content: 'Still there?' }] })
      .then(
        () => null,
        (err: unknown) => err,
      );
    expect(refused).toBeInstanceOf(OpenAI.APIError);
    expect((refused as InstanceType<typeof OpenAI.APIError>).status).toBe(401);
    expect((refused as InstanceType<typeof OpenAI.APIError>).code).toBe('invalid_api_key');
    expect(pageErrors).toEqual([]);
  }, 30_000);

  // Last: its row would count in the usage the tests before it check.
  it("a fallback's detail names the model asked for, the one that answered, and each attempt's model", async () => {
    const { key_id: keyId, user_id: userId } = await gw.logRow(cachedRequestId);
    const job = requestLogJob({
      keyId,
      userId,
      model: 'mock-gpt',
      requestedModel: 'fast',
      fallbackFrom: 'mock-big',
      providerId: 'mock-openai',
      attempts: [
        { providerId: 'big-vendor', status: 503, outcome: 'http_error', latencyMs: 4, model: 'mock-big' },
        { providerId: 'mock-openai', status: 200, outcome: 'ok', latencyMs: 9, model: 'mock-gpt' },
      ],
    });
    await insertRequestLogs(gw.db.db, [job]);
    await page.goto(url(`/logs/${job.requestId}`));
    const detail = page.locator('#log-detail', { hasText: job.requestId });
    await detail.waitFor();
    const text = (await detail.textContent())!;
    expect(text).toContain('fallback from mock-big');
    expect(text).toMatch(/Requested as\s*fast/);
    await expect(page.locator('#attempts-table thead').textContent()).resolves.toContain('Model');
    const attempts = await cellsOf(page.locator('#attempts-table tbody tr'));
    expect(attempts.map((a) => a.slice(0, 3))).toEqual([
      ['1', 'mock-big', 'big-vendor'],
      ['2', 'mock-gpt', 'mock-openai'],
    ]);
  });
});
