import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdir } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type APIRequestContext, type Browser, chromium, type Page, type Request } from 'playwright-core';
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

/**
 * Sends the provider a browser's request and follows its redirects with the context's own requests
 * (the browser's cookies, both ways) up to the first that leaves the provider; that one's target.
 */
async function leavingProvider(
  context: APIRequestContext,
  request: Request,
  issuer: string,
): Promise<string> {
  let answer = await context.post(request.url(), {
    form: Object.fromEntries(new URLSearchParams(request.postData() ?? '')),
    maxRedirects: 0,
  });
  for (let hops = 0; hops < 10; hops++) {
    const to = answer.headers()['location'] ?? '';
    if (!to.startsWith(issuer)) return to;
    answer = await context.get(to, { maxRedirects: 0 });
  }
  throw new Error('the provider never redirected back to the console');
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

  it('a forged callback with the genuine state (a leaked callback URL) is refused and the genuine sign-in still lands signed in', async () => {
    const page = await newPage();
    await page.goto(`${sso.consoleUrl}/usage`);
    await page.getByRole('link', { name: 'Sign in with Test IdP' }).click();
    await page.waitForURL((u) => u.href.startsWith(`${sso.idp.issuer}/interaction/`));
    await page.getByLabel('IdP email').fill(ADA.email);
    await page.getByLabel('IdP password').fill(ADA.password);
    // The provider's redirect back to the callback is held in the browser while an attacker
    // replays its URL. Playwright routes no redirect, so the login form's post is routed, the
    // provider's hops are walked by leavingProvider, and the browser is then sent to the callback.
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const leaked = new Promise<string>((resolve, reject) => {
      void page.route(
        (u) => u.origin === sso.idp.issuer && u.pathname.endsWith('/login'),
        async (route) => {
          const to = await leavingProvider(page.context().request, route.request(), sso.idp.issuer).catch(
            (err: unknown) => {
              reject(err as Error);
              return null;
            },
          );
          if (to === null) return route.abort();
          resolve(to);
          await held;
          await route.fulfill({ status: 303, headers: { location: to } });
        },
      );
    });
    // Not awaited: the click waits for the navigation the route holds.
    const clicked = page.getByRole('button', { name: 'Continue' }).click();

    // The attacker's browser holds a binding of its own sign-in, not the victim's.
    const attacker = await browser.newContext();
    const start = await attacker.request.get(`${sso.consoleUrl}/api/auth/oidc/start`, { maxRedirects: 0 });
    expect(start.status()).toBe(302);
    const forged = await attacker.request.get(await leaked, { maxRedirects: 0 });
    expect(forged.status()).toBe(400);
    expect(await forged.json()).toEqual({
      error: { code: 'invalid_request', message: expect.stringMatching(/another browser/) as unknown },
    });
    expect((await attacker.request.get(`${sso.consoleUrl}/api/session`)).status()).toBe(401);
    await attacker.close();

    const genuine = page.waitForResponse((r) =>
      r.url().startsWith(`${sso.consoleUrl}/api/auth/oidc/callback`),
    );
    release();
    await clicked;
    const res = await genuine;
    expect({ status: res.status(), body: res.status() === 302 ? null : await res.text() }).toEqual({
      status: 302,
      body: null,
    });
    await page.waitForURL(`${sso.consoleUrl}/usage`);
    await page.locator('.user-email', { hasText: ADA.email }).waitFor();
    expect((await page.request.get(`${sso.consoleUrl}/api/session`)).status()).toBe(200);
    expect(pageErrors).toEqual([]);
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
