import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { Redis } from 'ioredis';
import { displayPrefix, generateApiKey, hashApiKey } from '#libs/auth';
import {
  findApiKeyByHash,
  findUserByEmail,
  insertApiKey,
  insertTeam,
  teamsOfUser,
  upsertTeamMember,
} from '#libs/db';
import { redisKeys } from '#libs/redis';
import { SignInEvents } from '../sign-in-events.js';
import { type IdTokenFault } from '../../../../../test/support/oidc-provider.js';
import { TEST_REDIS_URL } from '../../../../../test/support/redis.js';
import { type SsoConsole, startSsoConsole } from '../../../../../test/support/sso-console.js';
import { TeamsService } from '../../teams/teams.service.js';
import { SIGN_IN_TEAMS_REASON } from './oidc-teams.service.js';

// Single sign-on over HTTP against a real OIDC provider (oidc-provider) in this process: a tiny
// browser follows every redirect by hand, posts the provider's login form and keeps each origin's
// cookies, so the console sees exactly what a browser sends.

const ADA = {
  email: 'ada@example.com',
  password: 'ada-idp-password',
  roles: ['gateway-admins'],
  groups: ['ml-team'],
};
const BO = { email: 'bo@example.com', password: 'bo-idp-password', groups: ['everyone', 'payroll'] };
const EVE = { email: 'eve@elsewhere.example', password: 'eve-idp-password' };
const UNVERIFIED = { email: 'cy@example.com', password: 'cy-idp-password', emailVerified: false };
/** Signs in at the provider as herself; what her ID token claims is up to each test. */
const MALLORY = { email: 'mallory@elsewhere.example', password: 'mallory-idp-password' };

interface Cookie {
  readonly value: string;
  readonly path: string;
}

/** Cookies per origin with their paths, redirects by hand: what the console and provider see of a browser. */
class Browser {
  private readonly jar = new Map<string, Map<string, Cookie>>();

  async get(url: string): Promise<Response> {
    return this.send(url, { method: 'GET' });
  }

  async send(url: string, init: RequestInit): Promise<Response> {
    const u = new URL(url);
    const cookies = [...(this.jar.get(u.origin) ?? new Map<string, Cookie>()).entries()]
      .filter(([, c]) => u.pathname.startsWith(c.path))
      .map(([name, c]) => `${name}=${c.value}`)
      .join('; ');
    const headers = new Headers(init.headers);
    if (cookies) headers.set('cookie', cookies);
    const res = await fetch(url, { ...init, headers, redirect: 'manual' });
    for (const line of res.headers.getSetCookie()) this.store(u.origin, line);
    return res;
  }

  cookie(origin: string, name: string): string | undefined {
    return this.jar.get(origin)?.get(name)?.value;
  }

  private store(origin: string, line: string): void {
    const [pair, ...attrs] = line.split(';').map((s) => s.trim());
    const eq = pair!.indexOf('=');
    const name = pair!.slice(0, eq);
    const value = pair!.slice(eq + 1);
    const path = attrs.find((a) => a.toLowerCase().startsWith('path='))?.slice(5) ?? '/';
    const expired = attrs.some((a) => /^max-age=0$/i.test(a) || /^expires=thu, 01 jan 1970/i.test(a));
    const jar = this.jar.get(origin) ?? new Map<string, Cookie>();
    this.jar.set(origin, jar);
    if (expired || value === '') jar.delete(name);
    else jar.set(name, { value, path });
  }
}

let sso: SsoConsole;
const consoleUrl = (path: string) => `${sso.consoleUrl}${path}`;

beforeAll(async () => {
  sso = await startSsoConsole('oidc-int', { ada: ADA, bo: BO, eve: EVE, cy: UNVERIFIED, mallory: MALLORY });
}, 30_000);

afterAll(async () => {
  await sso?.close();
});

const location = (res: Response): string => {
  const to = res.headers.get('location');
  if (!to) throw new Error(`no location on a ${res.status}`);
  return to;
};

/**
 * Starts at the console, signs in at the provider's login page and stops at the callback URL the
 * provider redirects to (not followed, so a test can replay or alter it).
 */
async function toCallback(
  browser: Browser,
  who: { email: string; password: string },
  next = '/usage',
): Promise<URL> {
  const start = await browser.get(consoleUrl(`/api/auth/oidc/start?next=${encodeURIComponent(next)}`));
  expect(start.status).toBe(302);
  let url = new URL(location(start));
  for (let hops = 0; hops < 10; hops++) {
    if (url.origin === sso.consoleUrl) return url;
    const res = await browser.get(url.href);
    if (res.status === 200 && url.pathname.startsWith('/interaction/')) {
      const form = new URLSearchParams({ login: who.email, password: who.password });
      const posted = await browser.send(`${url.origin}${url.pathname}/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: form.toString(),
      });
      expect(posted.status).toBe(303);
      url = new URL(location(posted), url);
      continue;
    }
    expect([302, 303]).toContain(res.status);
    url = new URL(location(res), url);
  }
  throw new Error('the provider never redirected back to the console');
}

async function expectRefused(res: Response, status: number, code: string, words: RegExp): Promise<void> {
  expect(res.status).toBe(status);
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  const body = (await res.json()) as { error: { code: string; message: string } };
  expect(body).toEqual({ error: { code, message: expect.stringMatching(words) as unknown } });
}

async function sessionOf(
  browser: Browser,
): Promise<{ status: number; body: { user?: { email: string; role: string }; csrfToken?: string } }> {
  const res = await browser.get(consoleUrl('/api/session'));
  return { status: res.status, body: (await res.json()) as never };
}

const lastSignInEventId = async (): Promise<string> =>
  (
    await sso.db.db
      .selectFrom('audit_events')
      .select((eb) => eb.fn.max('id').as('id'))
      .executeTakeFirst()
  )?.id ?? '0';

/** The refused sign-ins the audit trail recorded after the event `since`. */
const refusedSignInsSince = (since: string) =>
  sso.db.db
    .selectFrom('audit_events')
    .select(['actor_kind', 'actor_email', 'after', 'reason'])
    .where('action', '=', 'auth.sign_in')
    .where('outcome', '=', 'refused')
    .where('id', '>', since)
    .orderBy('id')
    .execute();

describe('the authorization request', () => {
  it('sends the browser to the discovered endpoint with PKCE S256, state, nonce and the registered redirect', async () => {
    const browser = new Browser();
    const res = await browser.get(consoleUrl('/api/auth/oidc/start'));
    expect(res.status).toBe(302);
    const to = new URL(location(res));
    expect(`${to.origin}${to.pathname}`).toBe(`${sso.idp.issuer}/auth`);
    const q = to.searchParams;
    expect(q.get('client_id')).toBe(sso.idp.clientId);
    expect(q.get('response_type')).toBe('code');
    expect(q.get('redirect_uri')).toBe(consoleUrl('/api/auth/oidc/callback'));
    expect(q.get('scope')).toBe('openid email profile groups');
    expect(q.get('code_challenge_method')).toBe('S256');
    expect(q.get('code_challenge')).toMatch(/^[\w-]{43}$/);
    expect(q.get('state')).toMatch(/^[\w-]{43}$/);
    expect(q.get('nonce')).toMatch(/^[\w-]{43}$/);
    expect(browser.cookie(sso.consoleUrl, 'gw_oidc')).toMatch(/^[\w-]{43}$/);
  });

  it('the sign-in page learns both methods are offered', async () => {
    const res = await fetch(consoleUrl('/api/auth/methods'));
    expect(await res.json()).toEqual({
      password: true,
      sso: { name: 'Test IdP', startUrl: '/api/auth/oidc/start' },
    });
  });
});

describe('a full sign-in', () => {
  it('creates the user at the first sign-in with the mapped role and groups, opens a session, lands on next', async () => {
    expect(await findUserByEmail(sso.db.db, ADA.email)).toBeUndefined();
    const browser = new Browser();
    const callback = await toCallback(browser, ADA);
    expect(callback.searchParams.get('iss')).toBe(sso.idp.issuer);
    const res = await browser.get(callback.href);
    expect(res.status).toBe(302);
    expect(location(res)).toBe('/usage');
    expect(browser.cookie(sso.consoleUrl, 'gw_session')).toMatch(/^[\w-]{43}$/);
    expect(browser.cookie(sso.consoleUrl, 'gw_oidc')).toBeUndefined();
    const session = await sessionOf(browser);
    expect(session.status).toBe(200);
    expect(session.body.user).toMatchObject({ email: ADA.email, role: 'admin' });
    const user = await findUserByEmail(sso.db.db, ADA.email);
    expect(user).toMatchObject({
      role: 'admin',
      groups: ['default', 'other'],
      password_hash: null,
      status: 'active',
    });
  });

  it('refreshes role and groups from the claims at every sign-in, on the same user row', async () => {
    const first = new Browser();
    await first.get((await toCallback(first, BO)).href);
    const before = await findUserByEmail(sso.db.db, BO.email);
    expect(before).toMatchObject({ role: 'member', groups: ['default'] });

    sso.idp.accounts.set('bo', { ...BO, roles: ['gateway-admins'], groups: ['ml-team'] });
    const second = new Browser();
    await second.get((await toCallback(second, BO)).href);
    const after = await findUserByEmail(sso.db.db, BO.email);
    expect(after).toMatchObject({ id: before!.id, role: 'admin', groups: ['default', 'other'] });

    sso.idp.accounts.set('bo', BO);
    const third = new Browser();
    await third.get((await toCallback(third, BO)).href);
    expect(await findUserByEmail(sso.db.db, BO.email)).toMatchObject({
      id: before!.id,
      role: 'member',
      groups: ['default'],
    });
  });

  it('sign-out ends the gateway session', async () => {
    const browser = new Browser();
    await browser.get((await toCallback(browser, ADA)).href);
    const { body } = await sessionOf(browser);
    const out = await browser.send(consoleUrl('/api/auth/sign-out'), {
      method: 'POST',
      headers: { 'x-csrf-token': body.csrfToken! },
    });
    expect(out.status).toBe(204);
    expect(browser.cookie(sso.consoleUrl, 'gw_session')).toBeUndefined();
    expect((await sessionOf(browser)).status).toBe(401);
  });

  it('a next that leaves the console lands on /keys instead', async () => {
    const browser = new Browser();
    const res = await browser.get((await toCallback(browser, ADA, '//evil.example/x')).href);
    expect(location(res)).toBe('/keys');
  });
});

describe('a forged or replayed callback', () => {
  it('replayed (its state already used) is a 400, and the provider is not asked again', async () => {
    const browser = new Browser();
    const callback = await toCallback(browser, ADA);
    expect((await browser.get(callback.href)).status).toBe(302);
    const tokens = sso.idp.tokenRequests();
    await expectRefused(
      await browser.get(callback.href),
      400,
      'invalid_request',
      /unknown, expired or was already used/,
    );
    // The same with the browser-binding cookie of a fresh start: the state itself is spent.
    await browser.get(consoleUrl('/api/auth/oidc/start'));
    await expectRefused(await browser.get(callback.href), 400, 'invalid_request', /already used/);
    expect(sso.idp.tokenRequests()).toBe(tokens);
  });

  it('a forged state is a 400 and leaves the genuine sign-in able to finish', async () => {
    const browser = new Browser();
    const callback = await toCallback(browser, ADA);
    const forged = new URL(callback);
    forged.searchParams.set('state', 'A'.repeat(43));
    await expectRefused(await browser.get(forged.href), 400, 'invalid_request', /unknown, expired/);
    const noState = new URL(callback);
    noState.searchParams.delete('state');
    await expectRefused(await browser.get(noState.href), 400, 'invalid_request', /no state/);
    expect((await browser.get(callback.href)).status).toBe(302);
  });

  it('a callback started in another browser (login CSRF) is a 400', async () => {
    const attacker = new Browser();
    const callback = await toCallback(attacker, BO);
    const victim = new Browser();
    await expectRefused(await victim.get(callback.href), 400, 'invalid_request', /another browser/);
    expect(victim.cookie(sso.consoleUrl, 'gw_session')).toBeUndefined();
  });

  it("a forged callback carrying the genuine state under another browser's binding is a 400, audited, and the genuine sign-in still finishes", async () => {
    const victim = new Browser();
    const callback = await toCallback(victim, ADA);
    const since = await lastSignInEventId();
    // The callback URL leaked (a Referer, a proxy log) to an attacker with a binding of its own,
    // then to one with none at all.
    const attacker = new Browser();
    await attacker.get(consoleUrl('/api/auth/oidc/start'));
    expect(attacker.cookie(sso.consoleUrl, 'gw_oidc')).toBeDefined();
    await expectRefused(await attacker.get(callback.href), 400, 'invalid_request', /another browser/);
    await expectRefused(await new Browser().get(callback.href), 400, 'invalid_request', /another browser/);
    expect(attacker.cookie(sso.consoleUrl, 'gw_session')).toBeUndefined();
    expect(await refusedSignInsSince(since)).toEqual(
      Array(2).fill({
        actor_kind: 'anonymous',
        actor_email: null,
        after: { method: 'oidc', status: 400 },
        reason: expect.stringMatching(/another browser/) as unknown,
      }),
    );

    const res = await victim.get(callback.href);
    expect(res.status).toBe(302);
    expect(location(res)).toBe('/usage');
    expect((await sessionOf(victim)).body.user).toMatchObject({ email: ADA.email });
    // Finished, the state is spent for everyone.
    await expectRefused(await victim.get(callback.href), 400, 'invalid_request', /already used/);
  });

  it('the provider refusing (error=access_denied) is a 401', async () => {
    const browser = new Browser();
    const start = new URL(location(await browser.get(consoleUrl('/api/auth/oidc/start'))));
    const denied = new URL(consoleUrl('/api/auth/oidc/callback'));
    denied.search = new URLSearchParams({
      error: 'access_denied',
      state: start.searchParams.get('state')!,
      iss: sso.idp.issuer,
    }).toString();
    await expectRefused(
      await browser.get(denied.href),
      401,
      'unauthenticated',
      /refused the sign-in \(access_denied\)/,
    );
  });

  it('a code redeemed with another PKCE verifier (a stolen code in a fresh sign-in) is a 401', async () => {
    const thief = new Browser();
    const stolen = await toCallback(new Browser(), ADA);
    const own = await toCallback(thief, BO);
    const mixed = new URL(own);
    mixed.searchParams.set('code', stolen.searchParams.get('code')!);
    await expectRefused(
      await thief.get(mixed.href),
      401,
      'unauthenticated',
      /refused the code \(invalid_grant\)/,
    );
  });
});

describe('an ID token that does not validate', () => {
  const cases: ReadonlyArray<[IdTokenFault, RegExp]> = [
    ['tampered-signature', /JWT signature verification failed/],
    ['wrong-audience', /"aud" \(audience\)/],
    ['expired', /"exp" \(expiration time\)/],
    ['wrong-nonce', /"nonce"/],
  ];

  it.each(cases)('%s: 401, no session and no user for its claims', async (fault, words) => {
    const browser = new Browser();
    const callback = await toCallback(browser, BO);
    sso.idp.injectIdTokenFault(fault);
    const res = await browser.get(callback.href);
    await expectRefused(res, 401, 'unauthenticated', words);
    expect(browser.cookie(sso.consoleUrl, 'gw_session')).toBeUndefined();
    // The tampered token claimed admin@example.com: no such user came of it.
    expect(await findUserByEmail(sso.db.db, 'admin@example.com')).toBeUndefined();
  });
});

describe('claims that may not sign in', () => {
  it('an unverified email is a 403 and creates no user', async () => {
    const browser = new Browser();
    await expectRefused(
      await browser.get((await toCallback(browser, UNVERIFIED)).href),
      403,
      'forbidden',
      /not verified/,
    );
    expect(await findUserByEmail(sso.db.db, UNVERIFIED.email)).toBeUndefined();
  });

  it("an email_verified that is not the boolean true does not sign in as the address's existing admin: 403, audited, the admin untouched", async () => {
    const first = new Browser();
    expect((await first.get((await toCallback(first, ADA)).href)).status).toBe(302);
    const admin = await findUserByEmail(sso.db.db, ADA.email);
    expect(admin).toMatchObject({ role: 'admin' });
    // Another account of the provider whose token claims Ada's address, unverified in two spellings.
    for (const [verified, words] of [
      ['false', /email_verified claim is a string, not true/],
      [undefined, /sent no email_verified claim/],
    ] as const) {
      const since = await lastSignInEventId();
      sso.idp.accounts.set('mallory', { ...MALLORY, claims: { email: ADA.email, email_verified: verified } });
      const browser = new Browser();
      await expectRefused(
        await browser.get((await toCallback(browser, MALLORY)).href),
        403,
        'forbidden',
        words,
      );
      expect(browser.cookie(sso.consoleUrl, 'gw_session')).toBeUndefined();
      expect(await refusedSignInsSince(since)).toEqual([
        {
          actor_kind: 'anonymous',
          actor_email: ADA.email,
          after: { method: 'oidc', status: 403 },
          reason: expect.stringMatching(words) as unknown,
        },
      ]);
    }
    expect(await findUserByEmail(sso.db.db, ADA.email)).toEqual(admin);
  });

  it('a NUL in the email claim (Postgres refuses the byte) is a 403 in the usual shape, audited, no user made', async () => {
    const nul = 'mallory\u0000@example.com';
    const since = await lastSignInEventId();
    sso.idp.accounts.set('mallory', { ...MALLORY, claims: { email: nul } });
    const browser = new Browser();
    const words = /email claim holds a control character/;
    await expectRefused(
      await browser.get((await toCallback(browser, MALLORY)).href),
      403,
      'forbidden',
      words,
    );
    expect(browser.cookie(sso.consoleUrl, 'gw_session')).toBeUndefined();
    // The trail writes the control character as U+FFFD, as it does any.
    expect(await refusedSignInsSince(since)).toEqual([
      {
        actor_kind: 'anonymous',
        actor_email: 'mallory\ufffd@example.com',
        after: { method: 'oidc', status: 403 },
        reason: expect.stringMatching(words) as unknown,
      },
    ]);
    const made = await sso.db.db
      .selectFrom('users')
      .select('email')
      .where('email', 'like', 'mallory%')
      .execute();
    expect(made).toEqual([]);
  });

  it('a disabled user is refused with a 401', async () => {
    const browser = new Browser();
    await browser.get((await toCallback(browser, BO)).href);
    await sso.db.db.updateTable('users').set({ status: 'disabled' }).where('email', '=', BO.email).execute();
    const again = new Browser();
    await expectRefused(
      await again.get((await toCallback(again, BO)).href),
      401,
      'unauthenticated',
      /disabled/,
    );
    await sso.db.db.updateTable('users').set({ status: 'active' }).where('email', '=', BO.email).execute();
  });
});

describe('SSO only: password sign-in off, allowed domains', () => {
  let only: SsoConsole;
  beforeAll(async () => {
    only = await startSsoConsole(
      'oidc-int-only',
      { ada: ADA, eve: EVE },
      { password_sign_in: false, allowed_email_domains: ['example.com'] },
    );
  }, 30_000);
  afterAll(async () => {
    await only?.close();
  });

  it('the API refuses password sign-in (403) and says so to the sign-in page', async () => {
    const res = await fetch(`${only.consoleUrl}/api/auth/sign-in`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: ADA.email, password: 'whatever-password' }),
    });
    await expectRefused(res, 403, 'forbidden', /Password sign-in is turned off; sign in with Test IdP/);
    expect(await (await fetch(`${only.consoleUrl}/api/auth/methods`)).json()).toEqual({
      password: false,
      sso: { name: 'Test IdP', startUrl: '/api/auth/oidc/start' },
    });
  });

  it('an account of another domain is a 403', async () => {
    const saved = sso;
    sso = only;
    try {
      const browser = new Browser();
      await expectRefused(
        await browser.get((await toCallback(browser, EVE)).href),
        403,
        'forbidden',
        /elsewhere\.example may not sign in/,
      );
      const ok = new Browser();
      expect((await ok.get((await toCallback(ok, ADA)).href)).status).toBe(302);
    } finally {
      sso = saved;
    }
  });
});

describe('team memberships from the teams claim', () => {
  // eng-leads makes a team admin of eng; a value the map does not name, or a team that does not
  // exist, is not the gateway's business.
  const DEE = {
    email: 'dee@example.com',
    password: 'dee-idp-password',
    teams: ['eng-leads', 'ops', 'payroll'],
  };
  let teams: SsoConsole;
  let redis: Redis;
  const team: Record<string, string> = {};

  beforeAll(async () => {
    teams = await startSsoConsole(
      'oidc-int-teams',
      { dee: DEE },
      {
        teams_claim: 'teams',
        teams_map: {
          'eng-leads': [{ team: 'eng', admin: true }],
          eng: ['eng'],
          ops: ['ops'],
          research: ['research', 'not-a-team'],
        },
      },
    );
    for (const name of ['eng', 'ops', 'research'])
      team[name] = (await insertTeam(teams.db.db, { name, groups: ['default'], createdBy: null })).id;
    redis = new Redis(TEST_REDIS_URL, { lazyConnect: true });
    await redis.connect();
  }, 30_000);
  afterAll(async () => {
    redis?.disconnect();
    await teams?.close();
  });

  const signIn = async (): Promise<void> => {
    const saved = sso;
    sso = teams;
    try {
      const browser = new Browser();
      expect((await browser.get((await toCallback(browser, DEE)).href)).status).toBe(302);
    } finally {
      sso = saved;
    }
  };
  const memberships = async (userId: string) =>
    (await teamsOfUser(teams.db.db, userId)).map((t) => ({ team: t.name, admin: t.is_admin }));
  const teamEvents = (after: string) =>
    teams.db.db
      .selectFrom('audit_events')
      .select([
        'action',
        'actor_kind',
        'actor_id',
        'actor_email',
        'ip',
        'target_id',
        'before',
        'after',
        'reason',
      ])
      .where('action', 'like', 'team.%')
      .where('id', '>', after)
      .orderBy('id')
      .execute();
  const lastEventId = async () =>
    (
      await teams.db.db
        .selectFrom('audit_events')
        .select((eb) => eb.fn.max('id').as('id'))
        .executeTakeFirst()
    )?.id ?? '0';

  it('the first sign-in makes the user a member of the mapped teams that exist, each addition audited as the user', async () => {
    await signIn();
    const dee = (await findUserByEmail(teams.db.db, DEE.email))!;
    expect(await memberships(dee.id)).toEqual([
      { team: 'eng', admin: true },
      { team: 'ops', admin: false },
    ]);
    const bySignIn = {
      actor_kind: 'user',
      actor_id: dee.id,
      actor_email: DEE.email,
      ip: '127.0.0.1',
      reason: SIGN_IN_TEAMS_REASON,
      before: null,
    };
    expect(await teamEvents('0')).toEqual(
      [
        {
          ...bySignIn,
          action: 'team.member.add',
          target_id: team.eng,
          after: { userId: dee.id, admin: true },
        },
        {
          ...bySignIn,
          action: 'team.member.add',
          target_id: team.ops,
          after: { userId: dee.id, admin: false },
        },
      ].sort((a, b) => (a.target_id! < b.target_id! ? -1 : 1)),
    );
  });

  it('a later sign-in with other claims adds, removes and demotes, in one go; the removed team keys stop working at once', async () => {
    const dee = (await findUserByEmail(teams.db.db, DEE.email))!;
    const raw = generateApiKey();
    const key = await insertApiKey(teams.db.db, {
      user_id: dee.id,
      key_hash: hashApiKey(raw),
      display_prefix: displayPrefix(raw),
      group_name: 'default',
      team_id: team.ops!,
    });
    expect(await findApiKeyByHash(teams.db.db, key.key_hash)).toMatchObject({ team_allows: true });
    const generation = redisKeys(teams.redisPrefix).apiKeyGeneration(key.key_hash);
    expect(await redis.get(generation)).toBeNull();
    const since = await lastEventId();

    teams.idp.accounts.set('dee', { ...DEE, teams: ['eng', 'research'] });
    await signIn();
    expect(await memberships(dee.id)).toEqual([
      { team: 'eng', admin: false },
      { team: 'research', admin: false },
    ]);
    const events = await teamEvents(since);
    expect(events.map((e) => [e.action, e.target_id])).toEqual(
      expect.arrayContaining([
        ['team.member.remove', team.ops],
        ['team.admin.revoke', team.eng],
        ['team.member.add', team.research],
      ]),
    );
    expect(events).toHaveLength(3);
    for (const e of events) expect(e).toMatchObject({ actor_id: dee.id, reason: SIGN_IN_TEAMS_REASON });
    expect(events.find((e) => e.action === 'team.member.remove')).toMatchObject({
      before: { userId: dee.id, admin: false },
      after: { teamKeysEnded: 1 },
    });
    expect(events.find((e) => e.action === 'team.admin.revoke')).toMatchObject({
      before: { userId: dee.id, admin: true },
      after: { userId: dee.id, admin: false },
    });
    // The lookup refuses the key, and every edge was told to drop its cached copy (the outbox is
    // empty). Told at least once: the sign-in announces its change right after committing it, and
    // the outbox relay (every second, on every console replica) may announce the same row again
    // before the sign-in has deleted it, which the design allows (KeyInvalidations: announcing
    // twice is harmless, so replicas relay without coordinating).
    expect(await findApiKeyByHash(teams.db.db, key.key_hash)).toMatchObject({ team_allows: false });
    expect(Number(await redis.get(generation))).toBeGreaterThanOrEqual(1);
    expect(await teams.db.db.selectFrom('key_invalidations').selectAll().execute()).toEqual([]);
  });

  it('a sign-in whose claims map to the memberships already held changes and records nothing', async () => {
    const since = await lastEventId();
    await signIn();
    expect(await teamEvents(since)).toEqual([]);
  });

  it('the changes are one transaction: one failing leaves every membership and the trail as they were', async () => {
    const dee = (await findUserByEmail(teams.db.db, DEE.email))!;
    const held = await memberships(dee.id);
    const since = await lastEventId();
    // eng and research -> ops: both removals run first, then the addition fails.
    expect(held).toEqual([
      { team: 'eng', admin: false },
      { team: 'research', admin: false },
    ]);
    teams.idp.accounts.set('dee', { ...DEE, teams: ['ops'] });
    const put = jest
      .spyOn(TeamsService.prototype, 'putMemberIn')
      .mockRejectedValueOnce(new Error('simulated failure while adding'));
    try {
      const saved = sso;
      sso = teams;
      try {
        const browser = new Browser();
        expect((await browser.get((await toCallback(browser, DEE)).href)).status).toBe(500);
        expect(browser.cookie(teams.consoleUrl, 'gw_session')).toBeUndefined();
        expect(put).toHaveBeenCalledTimes(1);
      } finally {
        sso = saved;
      }
    } finally {
      put.mockRestore();
      teams.idp.accounts.set('dee', { ...DEE, teams: ['eng', 'research'] });
    }
    expect(await memberships(dee.id)).toEqual(held);
    expect(await teamEvents(since)).toEqual([]);
  });

  it('no mapped team at all: the user leaves every team', async () => {
    const dee = (await findUserByEmail(teams.db.db, DEE.email))!;
    const since = await lastEventId();
    teams.idp.accounts.set('dee', { ...DEE, teams: ['payroll'] });
    await signIn();
    expect(await memberships(dee.id)).toEqual([]);
    expect((await teamEvents(since)).map((e) => e.action)).toEqual([
      'team.member.remove',
      'team.member.remove',
    ]);
    teams.idp.accounts.set('dee', DEE);
  });

  it("without teams_claim, memberships are the admins' business: a sign-in leaves them as they are", async () => {
    const browser = new Browser();
    await browser.get((await toCallback(browser, BO)).href);
    const bo = (await findUserByEmail(sso.db.db, BO.email))!;
    const ops = await insertTeam(sso.db.db, { name: 'ops', groups: ['default'], createdBy: null });
    await upsertTeamMember(sso.db.db, { teamId: ops.id, userId: bo.id, isAdmin: true });
    const again = new Browser();
    await again.get((await toCallback(again, BO)).href);
    expect((await teamsOfUser(sso.db.db, bo.id)).map((t) => [t.name, t.is_admin])).toEqual([['ops', true]]);
    expect(
      await sso.db.db.selectFrom('audit_events').select('action').where('action', 'like', 'team.%').execute(),
    ).toEqual([]);
  });
});

describe('the sign-in hook', () => {
  it('every outcome passes SignInEvents.record: a success with its user, a refusal with its status and reason', async () => {
    const record = jest.spyOn(SignInEvents.prototype, 'record');
    try {
      const browser = new Browser();
      const callback = await toCallback(browser, ADA);
      await browser.get(callback.href);
      await browser.get(callback.href); // replayed
      const outcomes = record.mock.calls.map(([o]) => o);
      const user = await findUserByEmail(sso.db.db, ADA.email);
      expect(outcomes).toEqual([
        {
          ok: true,
          method: 'oidc',
          userId: user!.id,
          email: ADA.email,
          role: 'admin',
          created: false,
          ip: '127.0.0.1',
          userAgent: expect.any(String),
        },
        {
          ok: false,
          method: 'oidc',
          email: null,
          status: 400,
          reason: expect.stringMatching(/already used/),
          ip: '127.0.0.1',
          userAgent: expect.any(String),
        },
      ]);
    } finally {
      record.mockRestore();
    }
  });
});

describe('the provider out of reach', () => {
  it('starting a sign-in while discovery fails is a 503', async () => {
    const down = await startSsoConsole('oidc-int-nodisc', { ada: ADA });
    try {
      await down.idp.close();
      const res = await fetch(`${down.consoleUrl}/api/auth/oidc/start`, { redirect: 'manual' });
      expect(res.headers.get('retry-after')).toBe('5');
      await expectRefused(res, 503, 'service_unavailable', /identity provider cannot be reached/);
    } finally {
      await down.close();
    }
  }, 30_000);

  it('a callback whose code cannot be redeemed is a 503 with retry-after, not a 500', async () => {
    const down = await startSsoConsole('oidc-int-down', { ada: ADA });
    const saved = sso;
    sso = down;
    try {
      const browser = new Browser();
      const callback = await toCallback(browser, ADA);
      await down.idp.close();
      const res = await browser.get(callback.href);
      expect(res.headers.get('retry-after')).toBe('5');
      await expectRefused(res, 503, 'service_unavailable', /identity provider cannot be reached/);
    } finally {
      sso = saved;
      await down.close();
    }
  }, 30_000);
});

describe("the provider's signing keys rotated without a restart", () => {
  // openid-client (oauth4webapi) keeps the provider's JWKS up to 5 minutes, and refetches it when
  // a token names a key the copy lacks, provided the copy is at least a minute old (the floor that
  // keeps tokens under unknown kids from hammering the provider). The tests move the process clock
  // (the provider's, the console's and openid-client's alike) past those marks instead of waiting.
  let rot: SsoConsole;
  let ahead = 0;
  const realNow = Date.now.bind(Date);
  let clock: ReturnType<typeof jest.spyOn> | undefined;

  beforeAll(async () => {
    rot = await startSsoConsole('oidc-int-keys', { ada: ADA, bo: BO });
    clock = jest.spyOn(Date, 'now').mockImplementation(() => realNow() + ahead);
  }, 30_000);
  afterAll(async () => {
    clock?.mockRestore();
    await rot?.close();
  });

  /** A whole sign-in of `who` at the rotation console; the callback's answer. */
  const signIn = async (
    who: { email: string; password: string },
    fault: IdTokenFault | null = null,
  ): Promise<{ res: Response; browser: Browser }> => {
    const saved = sso;
    sso = rot;
    try {
      const browser = new Browser();
      const callback = await toCallback(browser, who);
      if (fault) rot.idp.injectIdTokenFault(fault);
      return { res: await browser.get(callback.href), browser };
    } finally {
      sso = saved;
    }
  };
  const signedIn = async (who: { email: string; password: string }): Promise<void> => {
    const { res, browser } = await signIn(who);
    expect(res.status).toBe(302);
    const session = await browser.get(`${rot.consoleUrl}/api/session`);
    expect(((await session.json()) as { user: { email: string } }).user.email).toBe(who.email);
  };
  const refused = async (fault: IdTokenFault | null, words: RegExp): Promise<void> => {
    const { res, browser } = await signIn(BO, fault);
    expect(res.status).toBe(401);
    expect(((await res.json()) as { error: { message: string } }).error.message).toMatch(words);
    expect(browser.cookie(rot.consoleUrl, 'gw_session')).toBeUndefined();
  };
  const refusedSignIns = () =>
    rot.db.db
      .selectFrom('audit_events')
      .select(['actor_kind', 'outcome', 'after', 'reason'])
      .where('action', '=', 'auth.sign_in')
      .where('outcome', '=', 'refused')
      .orderBy('id')
      .execute();
  const NO_KEY = /no applicable keys found/;

  it('the JWKS is fetched once and reused by the following sign-ins', async () => {
    await signedIn(ADA);
    await signedIn(BO);
    expect(rot.idp.lastIdTokenKid()).toBe('test-signing-key-1');
    expect(rot.idp.jwksRequests()).toBe(1);
  });

  it('after a rotation the new key is refused while the copy is under a minute old, then fetched and accepted', async () => {
    const kid = await rot.idp.rotateSigningKey();
    expect(kid).toBe('test-signing-key-2');
    // The copy fetched by the first test is seconds old: no refetch yet, the token is refused.
    await refused(null, NO_KEY);
    expect(rot.idp.lastIdTokenKid()).toBe(kid);
    expect(rot.idp.jwksRequests()).toBe(1);

    ahead += 61_000;
    await signedIn(ADA);
    expect(rot.idp.lastIdTokenKid()).toBe(kid);
    expect(rot.idp.jwksRequests()).toBe(2);
    await signedIn(BO);
    expect(rot.idp.jwksRequests()).toBe(2);
  });

  it('a retired key is trusted until the copy holding it expires (5 minutes), then refused: 401, audited', async () => {
    rot.idp.retireOldSigningKeys();
    const before = (await refusedSignIns()).length;
    // The copy fetched after the rotation still lists key 1.
    const { res } = await signIn(BO, 'retired-key');
    expect(res.status).toBe(302);
    expect(rot.idp.lastIdTokenKid()).toBe('test-signing-key-1');

    ahead += 300_000;
    await refused('retired-key', NO_KEY);
    expect(rot.idp.lastIdTokenKid()).toBe('test-signing-key-1');
    expect(rot.idp.jwksRequests()).toBe(3);
    const events = (await refusedSignIns()).slice(before);
    expect(events).toEqual([
      {
        actor_kind: 'anonymous',
        outcome: 'refused',
        after: { method: 'oidc', status: 401 },
        reason: expect.stringMatching(NO_KEY) as unknown,
      },
    ]);
    // The current key goes on signing in without a fetch.
    await signedIn(ADA);
    expect(rot.idp.jwksRequests()).toBe(3);
  });

  it('a token signed by a key the provider never published is refused, audited, and a run of them costs at most one fetch a minute', async () => {
    const before = (await refusedSignIns()).length;
    // The copy is fresh: an unknown kid is refused from it.
    for (let i = 0; i < 3; i++) await refused('unknown-key', NO_KEY);
    expect(rot.idp.lastIdTokenKid()).toBe('attacker-key-1');
    expect(rot.idp.jwksRequests()).toBe(3);
    // A minute on, the first unknown kid refetches once; the next ones use that copy.
    ahead += 61_000;
    for (let i = 0; i < 3; i++) await refused('unknown-key', NO_KEY);
    expect(rot.idp.jwksRequests()).toBe(4);
    // The real kid over an attacker's signature: the key is found and the signature fails, so no
    // fetch, though the copy is old enough for one.
    ahead += 61_000;
    await refused('unknown-key-known-kid', /JWT signature verification failed/);
    expect(rot.idp.lastIdTokenKid()).toBe(rot.idp.signingKid());
    expect(rot.idp.jwksRequests()).toBe(4);

    const events = (await refusedSignIns()).slice(before);
    expect(events).toHaveLength(7);
    for (const e of events)
      expect(e).toMatchObject({ actor_kind: 'anonymous', after: { method: 'oidc', status: 401 } });
  });
});
