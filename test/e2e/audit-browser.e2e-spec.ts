import { mkdir } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import { ConsoleClient } from '../support/console-client.js';
import { type Gateway, startGateway } from '../support/gateway.js';

// Admin › Audit in Debian's Chromium against the real console: events listed and opened, a
// filter in the address, and what a client chose (its user agent, the email it tried) shown as
// text, never as markup. Admin › Tokens: a token created (its secret shown once), its last use
// shown, then revoked. Screenshots land in test-results/screenshots/ (docs/images/ has copies).

const IMAGES = resolve(dirname(fileURLToPath(import.meta.url)), '../../test-results/screenshots');
const TOKEN = 'audit-browser-token-0123456789abcdef';
const ADMIN = { email: 'root@example.com', password: 'root-password-1234' };
const HOSTILE = '<img src=x onerror="window.__audit_xss=1">';

let gw: Gateway;
let browser: Browser;
let page: Page;
const pageErrors: string[] = [];

beforeAll(async () => {
  gw = await startGateway('audit_browser', undefined, { env: { CONSOLE_ADMIN_TOKEN: TOKEN } });
  const api = new ConsoleClient(gw.consoleUrl, TOKEN);
  const hostile = { headers: { 'user-agent': HOSTILE } };
  expect((await api.post('/api/admin/users', { ...ADMIN, role: 'admin' }, hostile)).status).toBe(201);
  expect(
    (await api.post('/api/admin/users', { email: 'dev@example.com', password: ADMIN.password })).status,
  ).toBe(201);
  const tried = await new ConsoleClient(gw.consoleUrl).post(
    '/api/auth/sign-in',
    { email: 'mallory@example.com', password: 'wrong password' },
    hostile,
  );
  expect(tried.status).toBe(401);
  await mkdir(IMAGES, { recursive: true });
  browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
  });
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, colorScheme: 'light' });
  page = await context.newPage();
  page.setDefaultTimeout(10_000);
  page.on('pageerror', (err) => pageErrors.push(String(err)));
  page.on('console', (msg) => {
    if (msg.type() === 'error' && !/status of 40[13]/.test(msg.text())) pageErrors.push(msg.text());
  });
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await gw?.close();
});

const url = (path: string) => `${gw.consoleUrl}${path}`;

describe('Admin › Audit', () => {
  it('lists the events with who, from where and what; one opens to its before and after', async () => {
    await page.goto(url('/'));
    await page.waitForURL(/\/sign-in/);
    await page.getByLabel('Email').fill(ADMIN.email);
    await page.getByLabel('Password').fill(ADMIN.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(/\/keys$/);
    await page.goto(url('/admin?tab=audit'));
    await page.locator('#audit-table').waitFor();
    await expect(page.locator('#audit-chain').textContent()).resolves.toMatch(
      /chain intact\s*4 events verified/,
    );
    const actions = await page
      .locator('#audit-table tbody tr:not([hidden]) td:nth-child(4)')
      .allTextContents();
    expect(actions).toEqual(['auth.sign_in', 'auth.sign_in', 'user.create', 'user.create']);

    const created = page.locator('#audit-table tbody tr', { hasText: 'user.create' }).last();
    await created.getByRole('button').click();
    const detail = page.locator('#audit-table tr.audit-detail:not([hidden])');
    await expect(detail.locator('pre').nth(1).textContent()).resolves.toContain(
      '"email": "root@example.com"',
    );
    await expect(detail.textContent()).resolves.toContain(HOSTILE);
    await page.screenshot({ path: resolve(IMAGES, 'console-audit.png'), fullPage: true });
  }, 30_000);

  it('filters in the address, and renders what a client chose as text', async () => {
    await page.getByLabel('Outcome').selectOption('refused');
    // The address changes before the filtered page replaces the table: wait for the old one to go,
    // or the count below may read the unfiltered rows (it did, about one run in four).
    const unfiltered = await page.$('#audit-table');
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.waitForURL(/outcome=refused/);
    await page.waitForFunction((table) => !table?.isConnected, unfiltered);
    await page.locator('#audit-table').waitFor();
    const rows = page.locator('#audit-table tbody tr:not([hidden])');
    await expect(rows.count()).resolves.toBe(1);
    await expect(rows.first().locator('td').nth(1).textContent()).resolves.toBe('mallory@example.com');
    await rows.first().getByRole('button').click();
    const detail = page.locator('#audit-table tr.audit-detail:not([hidden])');
    await expect(detail.textContent()).resolves.toContain(HOSTILE);
    await expect(detail.textContent()).resolves.toContain('Wrong email or password.');
    expect(await page.locator('#audit-table img').count()).toBe(0);
    expect(await page.evaluate(() => (globalThis as { __audit_xss?: number }).__audit_xss)).toBeUndefined();
    expect(pageErrors).toEqual([]);
  }, 30_000);
});

describe('Admin › Tokens', () => {
  it('creates a token whose secret is shown once, shows its last use, and revokes it', async () => {
    const api = new ConsoleClient(gw.consoleUrl, TOKEN);
    const made = await api.post('/api/admin/tokens', {
      name: 'nightly export',
      role: 'auditor',
      expiresInDays: 30,
    });
    expect(made.status).toBe(201);
    expect(
      (await new ConsoleClient(gw.consoleUrl, made.body.secret).get('/api/admin/audit/verify')).status,
    ).toBe(200);

    await page.goto(url('/admin?tab=tokens'));
    await page.locator('#tokens-table').waitFor();
    await page.getByRole('button', { name: 'Create token' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('Name').fill('terraform');
    await dialog.getByLabel('Role').selectOption('operator');
    await dialog.getByRole('button', { name: 'Create token' }).click();
    const secret = await dialog.locator('input.secret').inputValue();
    expect(secret).toMatch(/^gwa_[\w-]{43}$/);
    await dialog.getByRole('button', { name: 'Done' }).click();

    const row = page.locator('#tokens-table tbody tr', { hasText: 'terraform' });
    await expect(row.textContent()).resolves.toContain('active');
    await expect(row.textContent()).resolves.not.toContain(secret.slice(10));
    const nightly = page.locator('#tokens-table tbody tr', { hasText: 'nightly export' });
    await expect(nightly.locator('td').nth(4).textContent()).resolves.not.toBe('never');
    await page.screenshot({ path: resolve(IMAGES, 'console-tokens.png'), fullPage: true });

    // A name is text, never markup.
    expect(
      (await api.post('/api/admin/tokens', { name: HOSTILE, role: 'auditor', expiresInDays: 1 })).status,
    ).toBe(201);
    await page.reload();
    await expect(page.locator('#tokens-table tbody th', { hasText: 'onerror' }).textContent()).resolves.toBe(
      HOSTILE,
    );
    await row.getByRole('button', { name: /Revoke token/ }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Revoke token' }).click();
    await expect(row.locator('.badge', { hasText: 'revoked' }).waitFor()).resolves.toBeUndefined();
    expect((await new ConsoleClient(gw.consoleUrl, secret).get('/api/admin/config')).status).toBe(401);
    expect(await page.locator('#tokens-table img').count()).toBe(0);
    expect(pageErrors).toEqual([]);
  }, 30_000);
});

/**
 * Each role signs in in a Chromium context of its own and walks its Admin pages: a dozen
 * navigations and waits, each bounded by the page's 10 s action timeout. Nothing in it waits on
 * a timer or a retry: one test for the three roles took 4-5 s alone, and 50 s on a loaded
 * machine (a new context 3 s, the sign-in page's load 5 s), overrunning its 30 s budget. One
 * test per role, each with room for its steps, so a step's own timeout (naming the step) is
 * what fails a hung one, not the sum of slow ones.
 */
describe('the Admin page by role', () => {
  const contexts: BrowserContext[] = [];

  beforeAll(async () => {
    const api = new ConsoleClient(gw.consoleUrl, TOKEN);
    for (const role of ['auditor', 'operator'])
      expect(
        (await api.post('/api/admin/users', { email: `${role}@example.com`, password: ADMIN.password, role }))
          .status,
      ).toBe(201);
  }, 30_000);
  afterAll(async () => {
    await Promise.all(contexts.map((c) => c.close()));
  });

  const signIn = async (email: string) => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    contexts.push(context);
    const p = await context.newPage();
    p.setDefaultTimeout(10_000);
    p.on('pageerror', (err) => pageErrors.push(`${email}: ${String(err)}`));
    await p.goto(url('/sign-in'));
    await p.getByLabel('Email').fill(email);
    await p.getByLabel('Password').fill(ADMIN.password);
    await p.getByRole('button', { name: 'Sign in' }).click();
    await p.waitForURL(/\/keys$/);
    return p;
  };
  const tabs = (p: Page) => p.locator('nav.subnav a').allTextContents();

  it('shows an auditor every tab read-only', async () => {
    const auditor = await signIn('auditor@example.com');
    await auditor.goto(url('/admin'));
    await auditor.locator('#users-table').waitFor();
    expect(await tabs(auditor)).toEqual([
      'Users',
      'Teams',
      'Providers',
      'Models',
      'Groups',
      'History',
      'Import/Export',
      'All logs',
      'Audit',
      'Tokens',
    ]);
    expect(await auditor.getByRole('button', { name: 'Add user' }).count()).toBe(0);
    await auditor.goto(url('/admin?tab=providers'));
    await expect(auditor.locator('#config-read-only').textContent()).resolves.toContain('auditor');
    await auditor.goto(url('/admin?tab=tokens'));
    await auditor.locator('#tokens-table').waitFor();
    expect(await auditor.getByRole('button', { name: 'Create token' }).count()).toBe(0);
    expect(pageErrors).toEqual([]);
  }, 90_000);

  it('shows an operator no users, audit or tokens', async () => {
    const operator = await signIn('operator@example.com');
    await operator.goto(url('/admin?tab=users'));
    await operator.locator('nav.subnav').waitFor();
    expect(await tabs(operator)).toEqual([
      'Providers',
      'Models',
      'Groups',
      'History',
      'Import/Export',
      'All logs',
    ]);
    await operator.goto(url('/admin?tab=logs'));
    await operator.locator('#main table').first().waitFor();
    expect(pageErrors).toEqual([]);
  }, 90_000);

  it('shows a member nothing', async () => {
    const member = await signIn('dev@example.com');
    expect(await member.getByRole('link', { name: 'Admin' }).count()).toBe(0);
    await member.goto(url('/admin'));
    await member.waitForURL(/\/keys$/);
    expect(pageErrors).toEqual([]);
  }, 90_000);
});
