import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import Anthropic from '@anthropic-ai/sdk';
import { type INestApplication } from '@nestjs/common';
import OpenAI, { APIError } from 'openai';
import { createConsoleApp } from '../../apps/console/src/console.app.js';
import { type GatewayConfigInput } from '#libs/config';
import { ConsoleClient } from '../support/console-client.js';
import { eventually, type Gateway, startGateway, testConfig } from '../support/gateway.js';

/**
 * Budgets end to end: console API -> key invalidation -> edge admission in one script -> worker
 * charges. The edges run on a clock the test moves (minutes before the next UTC midnight, then past
 * it); Postgres and Redis are real.
 */
const TOKEN = 'budgets-admin-token-0123456789abcdef';
const PASSWORD = 'a long budget passphrase';
const DAY = 86_400_000;
const nextMidnight = Math.ceil((Date.now() + 1) / DAY) * DAY;
let offset = nextMidnight - 5 * 60_000 - Date.now(); // the edges think it is 23:55 UTC
const clock = (): number => Date.now() + offset;
const midnightIso = new Date(nextMidnight).toISOString().replace('.000Z', 'Z');

let gw: Gateway;
let app: INestApplication;
let admin: ConsoleClient;

function config(mockUrl: string): GatewayConfigInput {
  const base = testConfig(mockUrl);
  return { ...base, groups: { ...base.groups, renamed: ['mock-gpt-renamed'] } };
}

beforeAll(async () => {
  gw = await startGateway('budgets', config, { clock });
  app = await createConsoleApp({ ...gw.env, consoleAdminToken: TOKEN }, gw.config);
  await app.listen(0, '127.0.0.1');
  admin = new ConsoleClient((await app.getUrl()).replace('[::1]', '127.0.0.1'), TOKEN);
}, 30_000);

afterAll(async () => {
  await app?.close();
  await gw?.close();
});

/** A signed-in user with one key: its console session, key id, SDK client and user id. */
async function userWithKey(email: string) {
  const created = await admin.post('/api/admin/users', { email, password: PASSWORD });
  expect(created.status).toBe(201);
  const session = new ConsoleClient(admin.baseUrl);
  await session.signIn(email, PASSWORD);
  const key = await session.post('/api/keys', { name: 'budgeted', group: 'default' });
  expect(key.status).toBe(201);
  const client = new OpenAI({ baseURL: `${gw.edgeUrl}/v1`, apiKey: key.body.secret, maxRetries: 0 });
  return {
    session,
    keyId: key.body.key.id as string,
    userId: created.body.user.id as string,
    client,
    secret: key.body.secret as string,
  };
}

type Client = Awaited<ReturnType<typeof userWithKey>>['client'];
const ask = (client: Client, model = 'mock-gpt', headers: Record<string, string> = {}) =>
  client.chat.completions.create({ model, messages: [{ role: 'user', content: 'hi' }] }, { headers });

/** The refusal's message when the request is refused with 429 insufficient_quota, else null. */
async function refusal(p: Promise<unknown>): Promise<string | null> {
  try {
    await p;
    return null;
  } catch (err) {
    expect(err).toBeInstanceOf(APIError);
    expect(err).toMatchObject({ status: 429, code: 'insufficient_quota', type: 'insufficient_quota' });
    return (err as APIError).message;
  }
}

/** Whole seconds from the edges' clock to `ms`, rounded up: what retry-after should say. */
const secondsTo = (ms: number): number => Math.ceil((ms - clock()) / 1000);

/** Info lines of an SDK's logger: a retry the SDK makes on its own logs "retrying, N attempts remaining". */
function sdkLog(): {
  lines: string[];
  logger: Record<'error' | 'warn' | 'info' | 'debug', (m: string) => void>;
} {
  const lines: string[] = [];
  const ignore = (): void => undefined;
  return { lines, logger: { error: ignore, warn: ignore, debug: ignore, info: (m) => void lines.push(m) } };
}

/**
 * The `retry-after` of a refusal by each official SDK, shape A (OpenAI) and shape B (Anthropic),
 * both with their default retries: neither may retry a quota refusal on its own (the Anthropic SDK
 * would sleep a retry-after of hours, the OpenAI one retry twice for nothing).
 */
async function retryAfters(
  u: Awaited<ReturnType<typeof userWithKey>>,
): Promise<[string | null, string | null]> {
  const log = sdkLog();
  const sdk = { apiKey: u.secret, logLevel: 'info', logger: log.logger } as const;
  const a = await ask(new OpenAI({ ...sdk, baseURL: `${gw.edgeUrl}/v1` })).catch((e: unknown) => e);
  expect(a).toBeInstanceOf(APIError);
  const b = await new Anthropic({ ...sdk, baseURL: gw.edgeUrl }).messages
    .create({ model: 'mock-gpt', max_tokens: 50, messages: [{ role: 'user', content: 'hi' }] })
    .catch((e: unknown) => e);
  expect(b).toBeInstanceOf(Anthropic.APIError);
  const refusedB = b as InstanceType<typeof Anthropic.APIError>;
  expect(refusedB.status).toBe(429);
  expect(refusedB.error).toMatchObject({ type: 'error', error: { type: 'insufficient_quota' } });
  expect(log.lines.filter((l) => /retrying/.test(l))).toEqual([]);
  return [(a as APIError).headers?.get('retry-after') ?? null, refusedB.headers?.get('retry-after') ?? null];
}

/** Nanocredits charged to a user in Postgres once `count` charges landed. */
async function charged(userId: string, count: number): Promise<bigint[]> {
  return eventually(async () => {
    const rows = await gw.db.db
      .selectFrom('charges')
      .select('amount_nanos')
      .where('user_id', '=', userId)
      .execute();
    return rows.length >= count ? rows.map((r) => BigInt(r.amount_nanos)) : undefined;
  });
}

describe('budgets with the OpenAI SDK', () => {
  it('refuses a key whose daily budget is spent, naming it, and admits it again after midnight UTC', async () => {
    const u = await userWithKey('daily@example.com');
    await ask(u.client);
    const [cost] = await charged(u.userId, 1);
    // 2.5 requests' worth, created after one request: the window already holds it.
    const limitCredits = (Number(cost) * 2.5) / 1e9;
    const res = await u.session.post(`/api/keys/${u.keyId}/budgets`, { period: 'day', limitCredits });
    expect(res.status).toBe(201);
    expect(res.body.budget).toMatchObject({
      scope: 'key',
      period: 'day',
      window: 'calendar_utc',
      limitCredits,
    });
    expect(await refusal(ask(u.client))).toBeNull(); // 1 of 2.5 spent
    expect(await refusal(ask(u.client))).toBeNull(); // 2 of 2.5 spent: still under
    const message = await refusal(ask(u.client)); // 3 of 2.5: spent
    expect(message).toContain(`this key's daily budget of ${limitCredits.toFixed(9).replace(/0+$/, '')}`);
    expect(message).toContain(`is spent; it resets at ${midnightIso}.`);
    // Both shapes say when to come back: the seconds to the reset the message names (about 300).
    const latest = secondsTo(nextMidnight);
    const [shapeA, shapeB] = await retryAfters(u);
    const earliest = secondsTo(nextMidnight);
    for (const header of [shapeA, shapeB]) {
      expect(header).toMatch(/^\d+$/);
      expect(Number(header)).toBeGreaterThanOrEqual(earliest);
      expect(Number(header)).toBeLessThanOrEqual(latest);
    }
    await charged(u.userId, 3);
    const view = (await u.session.get(`/api/keys/${u.keyId}/budgets`)).body.budgets[0];
    expect(view).toMatchObject({ leftCredits: 0, resetsAt: new Date(nextMidnight).toISOString() });
    expect(view.spentCredits).toBeCloseTo((3 * Number(cost)) / 1e9, 9);

    offset = nextMidnight + 1_000 - Date.now(); // the edges' clock crosses midnight UTC
    expect(await refusal(ask(u.client))).toBeNull();
  });

  it("counts only a model group's models in its budget", async () => {
    const u = await userWithKey('group@example.com');
    await ask(u.client, 'mock-gpt-renamed');
    const [cost] = await charged(u.userId, 1);
    const limitCredits = (Number(cost) * 1.5) / 1e9;
    const res = await u.session.post(`/api/keys/${u.keyId}/budgets`, {
      period: 'week',
      limitCredits,
      modelGroup: 'renamed',
    });
    expect(res.status).toBe(201);
    for (let i = 0; i < 3; i++) expect(await refusal(ask(u.client, 'mock-gpt'))).toBeNull(); // not counted
    expect(await refusal(ask(u.client, 'mock-gpt-renamed'))).toBeNull(); // 1 of 1.5
    expect(await refusal(ask(u.client, 'mock-gpt-renamed'))).toMatch(
      /this key's weekly budget of .* credits for the models of group renamed is spent; it resets at \d{4}-\d\d-\d\dT00:00:00Z\.$/,
    );
    expect(await refusal(ask(u.client, 'mock-gpt'))).toBeNull();
  });

  it("bounds the overshoot of a user's budget by the requests in flight (N concurrent requests)", async () => {
    const u = await userWithKey('concurrent@example.com');
    await ask(u.client);
    const [cost] = await charged(u.userId, 1);
    const limit = cost! * 3n; // about three requests' worth, one already spent
    const res = await admin.post(`/api/admin/users/${u.userId}/budgets`, {
      period: 'month',
      limitCredits: Number(limit) / 1e9,
    });
    expect(res.status).toBe(201);
    const N = 20;
    // Each answer takes 100 ms upstream: all N are in flight before the first one settles.
    const results = await Promise.all(
      Array.from({ length: N }, () => refusal(ask(u.client, 'mock-gpt', { 'x-mock-latency-ms': '100' }))),
    );
    const admitted = results.filter((r) => r === null).length;
    const amounts = await charged(u.userId, 1 + admitted);
    const spent = amounts.reduce((a, b) => a + b, 0n);
    const largest = amounts.reduce((a, b) => (b > a ? b : a), 0n);
    // The documented bound: the window ends below limit + the costs of the requests in flight.
    expect(spent).toBeGreaterThanOrEqual(limit);
    expect(spent - limit).toBeLessThan(BigInt(N) * largest);
    expect(await refusal(ask(u.client))).toMatch(
      /your account's monthly budget of .* is spent; it resets at/,
    );
    process.stdout.write(
      `budget overshoot: ${admitted}/${N} admitted, limit ${limit}, spent ${spent} (+${spent - limit}), bound ${BigInt(N) * largest}\n`,
    );
  });
});

const remove = (client: ConsoleClient, path: string) => client.request('DELETE', path);
/** Resolves once the edge refuses the client for a spent budget (admitted requests spend it). */
const refusedSoon = (client: Client) =>
  eventually(async () => (await refusal(ask(client))) ?? undefined, 5000, 'a budget refusal');
/** Resolves once the edge admits the client again. */
const admittedSoon = (client: Client) =>
  eventually(async () => ((await refusal(ask(client))) === null ? true : undefined), 5000, 'admission');
const ONE_NANOCREDIT = 1e-9; // spent by the first request; a lifetime window ignores the edges' clock

describe('budgets API: removing, and keys of other users', () => {
  it("removes a key's budget (the edge admits the key again); a second removal is 404", async () => {
    const u = await userWithKey('remove-key@example.com');
    const path = `/api/keys/${u.keyId}/budgets`;
    const created = await u.session.post(path, { period: 'lifetime', limitCredits: ONE_NANOCREDIT });
    expect(created.status).toBe(201);
    const id = created.body.budget.id as string;
    expect(await refusedSoon(u.client)).toContain("this key's lifetime budget");

    const removed = await remove(u.session, `${path}/${id}`);
    expect(removed).toMatchObject({ status: 200, body: { invalidation: 'announced' } });
    expect((await u.session.get(path)).body).toEqual({ budgets: [], nextCursor: null });
    expect(await admittedSoon(u.client)).toBe(true);
    const again = await remove(u.session, `${path}/${id}`);
    expect(again).toMatchObject({ status: 404, body: { error: { code: 'not_found' } } });
  });

  it("answers 404 for another user's key on every budget route, and leaves its budget alone", async () => {
    const owner = await userWithKey('owner@example.com');
    const other = await userWithKey('other@example.com');
    const path = `/api/keys/${owner.keyId}/budgets`;
    const created = await owner.session.post(path, { period: 'day', limitCredits: 5 });
    expect(created.status).toBe(201);
    const id = created.body.budget.id as string;

    const attempts = await Promise.all([
      other.session.get(path),
      other.session.post(path, { period: 'day', limitCredits: 1 }),
      remove(other.session, `${path}/${id}`),
      // The other user's own key, naming the owner's budget: not that key's budget.
      remove(other.session, `/api/keys/${other.keyId}/budgets/${id}`),
    ]);
    for (const res of attempts)
      expect(res).toMatchObject({ status: 404, body: { error: { code: 'not_found' } } });
    const still = (await owner.session.get(path)).body.budgets;
    expect(still.map((b: { id: string }) => b.id)).toEqual([id]);
    expect((await other.session.get(`/api/keys/${other.keyId}/budgets`)).body).toEqual({
      budgets: [],
      nextCursor: null,
    });
  });

  it("an admin removes a user's budget (users may not); only through that user's route", async () => {
    const u = await userWithKey('remove-user@example.com');
    const stranger = await userWithKey('stranger@example.com');
    const created = await admin.post(`/api/admin/users/${u.userId}/budgets`, {
      period: 'lifetime',
      limitCredits: ONE_NANOCREDIT,
    });
    expect(created.status).toBe(201);
    const id = created.body.budget.id as string;
    expect(await refusedSoon(u.client)).toContain("your account's lifetime budget");

    const byUser = await remove(u.session, `/api/admin/users/${u.userId}/budgets/${id}`);
    expect(byUser).toMatchObject({ status: 403, body: { error: { code: 'forbidden' } } });
    const wrongUser = await remove(admin, `/api/admin/users/${stranger.userId}/budgets/${id}`);
    expect(wrongUser).toMatchObject({ status: 404, body: { error: { code: 'not_found' } } });
    expect((await u.session.get('/api/budgets')).body.budgets).toHaveLength(1);

    const removed = await remove(admin, `/api/admin/users/${u.userId}/budgets/${id}`);
    expect(removed).toMatchObject({ status: 200, body: { invalidation: 'announced' } });
    expect((await u.session.get('/api/budgets')).body).toEqual({ budgets: [], nextCursor: null });
    expect((await admin.get(`/api/admin/users/${u.userId}/budgets`)).body).toEqual({
      budgets: [],
      nextCursor: null,
    });
    expect(await admittedSoon(u.client)).toBe(true);
    const again = await remove(admin, `/api/admin/users/${u.userId}/budgets/${id}`);
    expect(again).toMatchObject({ status: 404, body: { error: { code: 'not_found' } } });
  });
});
