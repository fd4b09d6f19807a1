import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdir } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Browser, chromium, type Page } from 'playwright-core';
import { findUserByEmail } from '#libs/db';
import { type SsoConsole, startSsoConsole } from '../support/sso-console.js';

// Single sign-on in Debian's Chromium: the console's sign-in page, the provider's own login page
// (oidc-provider in this process), back to the console signed in, then signed out. Screenshots
// land in test-results/screenshots/ like console-browser.e2e-spec.ts's.

const IMAGES = resolve(dirname(fileURLToPath(import.meta.url)), '../../test-results/screenshots');
const ADA = {
  email: 'ada@example.com',
  password: 'ada-idp-password',
  roles: ['gateway-admins'],
  groups: ['ml-team'],
};

let browser: Browser;
const pageErrors: string[] = [];

async function newPage(): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, colorScheme: 'light' });
  const page = await context.newPage();
  page.setDefaultTimeout(10_000);
  // A script error or a CSP violation in the console is a failure, not noise.
  page.on('pageerror', (err) => pageErrors.push(String(err)));
  page.on('console', (msg) => {
    // The browser's own favicon request (the test provider's page has none) is not the console's.
    const url = msg.location().url;
    if (msg.type() === 'error' && !/status of 40[13]/.test(msg.text()) && !url.endsWith('/favicon.ico'))
      pageErrors.push(`${msg.text()} ${url}`);
  });
  return page;
}

beforeAll(async () => {
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
}, 30_000);

afterAll(async () => {
  await browser?.close();
});

describe('single sign-on in the browser', () => {
  let sso: SsoConsole;
  beforeAll(async () => {
    sso = await startSsoConsole('console-sso', { ada: ADA });
  }, 30_000);
  afterAll(async () => {
    await sso?.close();
  });

  it('signs in through the provider’s login page, lands in the console signed in, then signs out', async () => {
    const page = await newPage();
    await page.goto(`${sso.consoleUrl}/usage`);
    await page.waitForURL(/\/sign-in\?next=%2Fusage$/);
    const ssoButton = page.getByRole('link', { name: 'Sign in with Test IdP' });
    await ssoButton.waitFor();
    await expect(page.getByLabel('Password').count()).resolves.toBe(1);
    await page.screenshot({ path: `${IMAGES}/console-sso-sign-in.png` });

    await ssoButton.click();
    await page.waitForURL((u) => u.href.startsWith(`${sso.idp.issuer}/interaction/`));
    await page.getByLabel('IdP email').fill(ADA.email);
    await page.getByLabel('IdP password').fill(ADA.password);
    await page.getByRole('button', { name: 'Continue' }).click();

    await page.waitForURL(`${sso.consoleUrl}/usage`);
    await page.locator('.user-email', { hasText: ADA.email }).waitFor();
    const cookies = await page.context().cookies(sso.consoleUrl);
    expect(cookies.find((c) => c.name === 'gw_session')).toMatchObject({ httpOnly: true, sameSite: 'Lax' });
    expect(await findUserByEmail(sso.db.db, ADA.email)).toMatchObject({
      role: 'admin',
      groups: ['default', 'other'],
    });
    // An admin, as the provider's roles claim made them: the admin pages are there.
    expect((await page.request.get(`${sso.consoleUrl}/api/admin/users`)).status()).toBe(200);

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(/\/sign-in/);
    expect((await page.request.get(`${sso.consoleUrl}/api/session`)).status()).toBe(401);
    expect(pageErrors).toEqual([]);
  }, 30_000);

  it('a tampered ID token on the way back is refused (401 in the API’s shape) and nobody is signed in', async () => {
    const page = await newPage();
    await page.goto(`${sso.consoleUrl}/sign-in`);
    await page.getByRole('link', { name: 'Sign in with Test IdP' }).click();
    await page.waitForURL((u) => u.href.startsWith(`${sso.idp.issuer}/interaction/`));
    await page.getByLabel('IdP email').fill(ADA.email);
    await page.getByLabel('IdP password').fill(ADA.password);
    sso.idp.injectIdTokenFault('tampered-signature');
    const answer = page.waitForResponse((r) =>
      r.url().startsWith(`${sso.consoleUrl}/api/auth/oidc/callback`),
    );
    await page.getByRole('button', { name: 'Continue' }).click();
    const res = await answer;
    expect(res.status()).toBe(401);
    expect(await res.json()).toEqual({
      error: {
        code: 'unauthenticated',
        message: expect.stringMatching(/signature verification failed/) as unknown,
      },
    });
    expect((await page.request.get(`${sso.consoleUrl}/api/session`)).status()).toBe(401);
  }, 30_000);
});

describe('a console with password sign-in turned off', () => {
  let only: SsoConsole;
  beforeAll(async () => {
    only = await startSsoConsole('console-sso-only', { ada: ADA }, { password_sign_in: false });
  }, 30_000);
  afterAll(async () => {
    await only?.close();
  });

  it('shows only the single sign-on button', async () => {
    const page = await newPage();
    await page.goto(`${only.consoleUrl}/sign-in`);
    await page.getByRole('link', { name: 'Sign in with Test IdP' }).waitFor();
    await expect(page.getByLabel('Password').count()).resolves.toBe(0);
    await expect(page.getByLabel('Email').count()).resolves.toBe(0);
    expect(pageErrors).toEqual([]);
  }, 30_000);
});
