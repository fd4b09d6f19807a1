import { mkdir } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { sql } from 'kysely';
import OpenAI from 'openai';
import { type Browser, chromium, type Page } from 'playwright-core';
import { ConsoleClient } from '../support/console-client.js';
import { type Gateway, startGateway } from '../support/gateway.js';

// Teams in Debian's Chromium against the real console (docs/teams.md): a team admin's Teams page
// (balance, every member's team keys, a key created for a member with its secret shown once), and
// Admin › Teams (members, team admins, balance). Screenshots land in test-results/screenshots/
// (docs/images/ has copies).

const IMAGES = resolve(dirname(fileURLToPath(import.meta.url)), '../../test-results/screenshots');
const TOKEN = 'teams-browser-token-0123456789abcdef';
const PASSWORD = 'a long teams passphrase';
const ROOT = { email: 'root@example.com', password: PASSWORD };

let gw: Gateway;
let browser: Browser;
let page: Page;
let teamId: string;
const pageErrors: string[] = [];

beforeAll(async () => {
  gw = await startGateway('teams_browser', undefined, { env: { CONSOLE_ADMIN_TOKEN: TOKEN } });
  const api = new ConsoleClient(gw.consoleUrl, TOKEN);
  const made = async (body: object) =>
    ((await api.post('/api/admin/users', body)).body as { user: { id: string } }).user.id;
  await made({ ...ROOT, role: 'admin' });
  const alice = await made({ email: 'alice@example.com', password: PASSWORD });
  const bob = await made({ email: 'bob@example.com', password: PASSWORD });
  teamId = (await api.post('/api/admin/teams', { name: 'Research', groups: ['default'] })).body.team.id;
  await api.post(`/api/admin/teams/${teamId}/members`, { userId: alice, admin: true });
  await api.post(`/api/admin/teams/${teamId}/members`, { userId: bob });
  await api.post(`/api/admin/teams/${teamId}/grants`, { credits: 250, note: 'Q4 research' });
  const bobSession = new ConsoleClient(gw.consoleUrl);
  await bobSession.signIn('bob@example.com', PASSWORD);
  const key = await bobSession.post(`/api/teams/${teamId}/keys`, { name: 'notebook', group: 'default' });
  const client = new OpenAI({ baseURL: `${gw.edgeUrl}/v1`, apiKey: key.body.secret, maxRetries: 0 });
  await client.chat.completions.create({ model: 'mock-gpt', messages: [{ role: 'user', content: 'hi' }] });

  await mkdir(IMAGES, { recursive: true });
  browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
  });
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, colorScheme: 'light' });
  page = await context.newPage();
  page.setDefaultTimeout(10_000);
  page.on('pageerror', (err) => pageErrors.push(String(err)));
}, 60_000);

// Closing Chromium and the whole stack (edge, router, worker, console) outlasts the 5 s default.
afterAll(async () => {
  await browser?.close();
  await gw?.close();
}, 30_000);

const url = (path: string) => `${gw.consoleUrl}${path}`;

async function signIn(email: string): Promise<void> {
  await page.context().clearCookies();
  await page.goto(url('/sign-in'));
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(/\/keys$/);
}

describe('Teams', () => {
  it("shows a team admin the team's balance and every member's keys, and creates a key for a member", async () => {
    await signIn('alice@example.com');
    await page.getByRole('link', { name: 'Teams' }).click();
    await page.locator('#team-keys-table').waitFor();
    await expect(page.locator('#team-summary').textContent()).resolves.toMatch(
      // 250 granted, less one request's cost (too small to show at two decimals).
      /Balance\s*(249|250)\.\d+ credits.*Requests, last 30 days\s*1Groups\s*default/,
    );
    const rows = page.locator('#team-keys-table tbody tr');
    await expect(rows.first().textContent()).resolves.toContain('bob@example.com');

    await page.getByRole('button', { name: 'Create team key' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('Name').fill('ci pipeline');
    await dialog.getByLabel('For member').selectOption({ label: 'bob@example.com' });
    await dialog.getByRole('button', { name: 'Create key' }).click();
    await expect(dialog.locator('input.secret').inputValue()).resolves.toMatch(/^sk-/);
    await dialog.getByRole('button', { name: 'Done' }).click();
    await expect(
      page.locator('#team-keys-table tbody tr', { hasText: 'ci pipeline' }).textContent(),
    ).resolves.toContain('bob@example.com');
    await page.screenshot({ path: resolve(IMAGES, 'console-teams.png'), fullPage: true });
    expect(pageErrors).toEqual([]);
  }, 30_000);

  it('shows admins the teams, their members and team admins', async () => {
    await signIn(ROOT.email);
    // Through the console's own links (no page load): Admin, its Teams tab, the team.
    await page.getByRole('link', { name: 'Admin' }).click();
    await page
      .getByRole('navigation', { name: 'Admin sections' })
      .getByRole('link', { name: 'Teams' })
      .click();
    await page.locator('#teams-table').getByRole('link', { name: 'Research' }).click();
    await page.waitForURL(new RegExp(`team=${teamId}`));
    await page.locator('#team-members-table').waitFor();
    await expect(page.locator('#teams-table tbody tr').first().textContent()).resolves.toContain('Research');
    const members = await page.locator('#team-members-table tbody th').allTextContents();
    expect(members).toEqual(['alice@example.com', 'bob@example.com']);
    await expect(
      page.locator('#team-members-table tbody tr', { hasText: 'alice' }).textContent(),
    ).resolves.toContain('team admin');
    await page.screenshot({ path: resolve(IMAGES, 'console-admin-teams.png'), fullPage: true });
    expect(pageErrors).toEqual([]);
  }, 30_000);

  /**
   * Until the users table has exactly `n` rows: no row n+1, then a row n. Locators, not a page
   * function: the console's CSP (script-src 'self') refuses the eval a string predicate needs, and
   * that refusal surfaced only when the predicate was not already true (a slow render).
   */
  const rowsAre = async (n: number): Promise<void> => {
    const rows = page.locator('#users-table tbody tr');
    await rows.nth(n).waitFor({ state: 'detached' });
    await rows.nth(n - 1).waitFor();
  };

  it('pages admins through the users 50 at a time, searches them on the server, adds a member found so', async () => {
    // 120 more users, written straight to Postgres: the console's pages must not need them all.
    await sql`insert into users (email) select 'pager-' || lpad(i::text, 3, '0') || '@example.com'
      from generate_series(1, 120) i`.execute(gw.db.db);
    const asked: string[] = [];
    page.on('request', (r) => {
      if (r.url().includes('/api/admin/users?')) asked.push(new URL(r.url()).search);
    });
    await page.goto(`${gw.consoleUrl}/admin?tab=users`);
    const rows = page.locator('#users-table tbody tr');
    await rows.first().waitFor();
    await expect(rows.count()).resolves.toBe(50);
    const more = page.getByRole('button', { name: 'Load more' });
    await more.click();
    await rowsAre(100);
    await more.click();
    // 123 users: root, alice, bob and the 120; the last page hides the button.
    await rowsAre(123);
    await expect(more.isHidden()).resolves.toBe(true);
    const emails = await page.locator('#users-table tbody th').allTextContents();
    expect(new Set(emails).size).toBe(123);
    expect(emails).toEqual([...emails].sort());

    await page.getByLabel('Search users by email').fill('pager-11');
    await rowsAre(10);
    await expect(page.locator('#users-table tbody th').allTextContents()).resolves.toEqual(
      Array.from({ length: 10 }, (_, i) => `pager-${110 + i}@example.com`),
    );
    expect(asked.some((q) => q.includes('q=pager-11'))).toBe(true);

    // Admin › Teams › Research: the member to add is found by the same server search.
    await page.goto(`${gw.consoleUrl}/admin?tab=teams&team=${teamId}`);
    await page.locator('#team-members-table').waitFor();
    const who = page.getByLabel('User', { exact: true });
    await who.fill('pager-007@example.com');
    await who.press('Enter');
    await who.blur();
    const add = page.getByRole('button', { name: 'Add member' });
    await add.click({ trial: true }); // waits until the picked user enables it
    await add.click();
    await page.locator('#team-members-table tbody tr', { hasText: 'pager-007@example.com' }).waitFor();
    expect(pageErrors).toEqual([]);
  }, 60_000);
});
