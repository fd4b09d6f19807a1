import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { type INestApplication } from '@nestjs/common';
import OpenAI, { APIError } from 'openai';
import { createConsoleApp } from '../../apps/console/src/console.app.js';
import { getQuotaBalance, getTeamBalance } from '#libs/db';
import { ConsoleClient } from '../support/console-client.js';
import { eventually, type Gateway, startGateway } from '../support/gateway.js';

/**
 * Teams end to end (issue 24, part 3; docs/teams.md): the console API creates teams, members,
 * team admins, credits and budgets; a member's team key spends the team's credits on a real edge
 * (not the member's), a team budget by period and a team without credits refuse with the existing
 * insufficient_quota errors, the worker writes the team on the log row and the charge; a team
 * admin reaching another team's users is refused 403 and each refusal and change is in the audit
 * trail.
 */
const TOKEN = 'teams-admin-token-0123456789abcdef';
const PASSWORD = 'a long teams passphrase';

let gw: Gateway;
let app: INestApplication;
let admin: ConsoleClient;

beforeAll(async () => {
  gw = await startGateway('teams');
  app = await createConsoleApp({ ...gw.env, consoleAdminToken: TOKEN }, gw.config);
  await app.listen(0, '127.0.0.1');
  admin = new ConsoleClient((await app.getUrl()).replace('[::1]', '127.0.0.1'), TOKEN);
}, 30_000);

afterAll(async () => {
  await app?.close();
  await gw?.close();
});

async function user(email: string): Promise<{ id: string; session: ConsoleClient }> {
  const created = await admin.post('/api/admin/users', { email, password: PASSWORD });
  expect(created.status).toBe(201);
  const session = new ConsoleClient(admin.baseUrl);
  await session.signIn(email, PASSWORD);
  return { id: created.body.user.id as string, session };
}

const sdk = (secret: string) => new OpenAI({ baseURL: `${gw.edgeUrl}/v1`, apiKey: secret, maxRetries: 0 });
const ask = (client: OpenAI) =>
  client.chat.completions.create({ model: 'mock-gpt', messages: [{ role: 'user', content: 'hi' }] });

/** The refusal's message when refused with 429 insufficient_quota, else null. */
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

/** The charges of a team once `count` landed (amount, user and request id). */
function teamCharges(teamId: string, count: number) {
  return eventually(async () => {
    const rows = await gw.db.db
      .selectFrom('charges')
      .select(['request_id', 'user_id', 'team_id', 'amount_nanos'])
      .where('team_id', '=', teamId)
      .orderBy('created_at')
      .execute();
    return rows.length >= count ? rows : undefined;
  });
}

/** Audit events of one action on one target, oldest first. */
const audited = (action: string, targetId: string) =>
  gw.db.db
    .selectFrom('audit_events')
    .select([
      'action',
      'outcome',
      'actor_email',
      'actor_token_name',
      'target_type',
      'before',
      'after',
      'reason',
    ])
    .where('action', '=', action)
    .where('target_id', '=', targetId)
    .orderBy('id')
    .execute();

describe('teams', () => {
  let alice: Awaited<ReturnType<typeof user>>; // team admin of A
  let bob: Awaited<ReturnType<typeof user>>; // member of A
  let carol: Awaited<ReturnType<typeof user>>; // team admin of B
  let teamA: string;
  let teamB: string;
  let bobKey: { id: string; secret: string };
  let carolKey: { id: string; secret: string };

  it('creates teams, members and team admins, each change in the audit trail', async () => {
    [alice, bob, carol] = [
      await user('alice@teams.test'),
      await user('bob@teams.test'),
      await user('carol@teams.test'),
    ];
    const a = await admin.post('/api/admin/teams', { name: 'Research', groups: ['default'] });
    expect(a.status).toBe(201);
    expect(a.body.team).toMatchObject({
      name: 'Research',
      groups: ['default'],
      memberCount: 0,
      balanceCredits: 0,
    });
    teamA = a.body.team.id;
    teamB = (await admin.post('/api/admin/teams', { name: 'Support', groups: ['default'] })).body.team.id;
    expect((await admin.post('/api/admin/teams', { name: 'Research' })).status).toBe(409);
    expect((await admin.post('/api/admin/teams', { name: 'X', groups: ['nope'] })).status).toBe(400);

    expect(
      (await admin.post(`/api/admin/teams/${teamA}/members`, { userId: alice.id, admin: true })).status,
    ).toBe(200);
    expect((await admin.post(`/api/admin/teams/${teamA}/members`, { userId: bob.id })).status).toBe(200);
    expect(
      (await admin.post(`/api/admin/teams/${teamB}/members`, { userId: carol.id, admin: true })).status,
    ).toBe(200);
    // Bob made a team admin and back: a grant and a revoke.
    expect((await admin.patch(`/api/admin/teams/${teamA}/members/${bob.id}`, { admin: true })).status).toBe(
      200,
    );
    const back = await admin.patch(`/api/admin/teams/${teamA}/members/${bob.id}`, { admin: false });
    expect(back.body.members).toEqual([
      expect.objectContaining({ email: 'alice@teams.test', admin: true }),
      expect.objectContaining({ email: 'bob@teams.test', admin: false }),
    ]);
    const renamed = await admin.patch(`/api/admin/teams/${teamA}`, { name: 'Research & Dev' });
    expect(renamed.body.team.name).toBe('Research & Dev');

    expect(await audited('team.create', teamA)).toEqual([
      expect.objectContaining({
        outcome: 'ok',
        actor_token_name: 'admin token',
        after: { name: 'Research', groups: ['default'] },
      }),
    ]);
    expect(await audited('team.update', teamA)).toEqual([
      expect.objectContaining({
        before: { name: 'Research', groups: ['default'] },
        after: { name: 'Research & Dev', groups: ['default'] },
      }),
    ]);
    expect((await audited('team.member.add', teamA)).map((e) => e.after)).toEqual([
      { userId: alice.id, admin: true },
      { userId: bob.id, admin: false },
    ]);
    expect((await audited('team.admin.grant', teamA)).map((e) => e.after)).toEqual([
      { userId: bob.id, admin: true },
    ]);
    expect((await audited('team.admin.revoke', teamA)).map((e) => e.after)).toEqual([
      { userId: bob.id, admin: false },
    ]);

    expect((await alice.session.get('/api/teams')).body.teams).toEqual([
      expect.objectContaining({ id: teamA, name: 'Research & Dev', admin: true }),
    ]);
  });

  it("spends the team's credits with a team key, not the member's, and the log and charge carry the team", async () => {
    const granted = await admin.post(`/api/admin/teams/${teamA}/grants`, { credits: 100, note: 'Q4' });
    expect(granted.body).toEqual({ balanceCredits: 100 });
    expect(await audited('team.credits.grant', teamA)).toEqual([
      expect.objectContaining({ after: { balanceCredits: 100, grantedCredits: 100, note: 'Q4' } }),
    ]);
    const bobBefore = await getQuotaBalance(gw.db.db, bob.id);

    const created = await bob.session.post(`/api/teams/${teamA}/keys`, { name: 'team ci', group: 'default' });
    expect(created.status).toBe(201);
    expect(created.body.key).toMatchObject({ teamId: teamA, group: 'default' });
    bobKey = { id: created.body.key.id, secret: created.body.secret };
    const keyCreated = await audited('key.create', bobKey.id);
    expect(keyCreated[0]?.after).toMatchObject({ ownerId: bob.id, teamId: teamA });
    // A group the team does not allow: refused.
    expect((await bob.session.post(`/api/teams/${teamA}/keys`, { name: 'x', group: 'other' })).status).toBe(
      403,
    );

    const answer = await ask(sdk(bobKey.secret));
    expect(answer.choices[0]?.message.content).toBeTruthy();
    const [charge] = await teamCharges(teamA, 1);
    expect(charge).toMatchObject({ user_id: bob.id, team_id: teamA });
    const log = await gw.logRow(charge!.request_id);
    expect(log).toMatchObject({ team_id: teamA, user_id: bob.id, key_id: bobKey.id });

    const team = await getTeamBalance(gw.db.db, teamA);
    expect(BigInt(team!.balance_nanos)).toBe(100_000_000_000n - BigInt(charge!.amount_nanos));
    expect(await getQuotaBalance(gw.db.db, bob.id)).toEqual(bobBefore);
  });

  it("refuses a team key once the team's daily budget is spent, with the budget error", async () => {
    const [first] = await teamCharges(teamA, 1);
    const cost = Number(first!.amount_nanos);
    const limitCredits = (cost * 2.5) / 1e9;
    const res = await admin.post(`/api/admin/teams/${teamA}/budgets`, { period: 'day', limitCredits });
    expect(res.status).toBe(201);
    expect(res.body.budget).toMatchObject({ scope: 'team', period: 'day', limitCredits });
    const budgetId = res.body.budget.id as string;
    expect((await audited('budget.create', budgetId))[0]?.after).toMatchObject({
      teamId: teamA,
      period: 'day',
    });

    const client = sdk(bobKey.secret);
    expect(await refusal(ask(client))).toBeNull(); // 2 of 2.5
    expect(await refusal(ask(client))).toBeNull(); // 3 of 2.5: admitted at 2
    expect(await refusal(ask(client))).toMatch(
      /Quota exceeded: your team's daily budget of .* credits is spent; it resets at /,
    );
    await teamCharges(teamA, 3);
    const view = (await admin.get(`/api/admin/teams/${teamA}/budgets`)).body.budgets[0];
    expect(view).toMatchObject({ id: budgetId, scope: 'team', leftCredits: 0 });

    const removed = await admin.request('DELETE', `/api/admin/teams/${teamA}/budgets/${budgetId}`);
    expect(removed.status).toBe(200);
    expect((await audited('budget.delete', budgetId))[0]?.before).toMatchObject({ teamId: teamA });
    expect(await eventually(async () => ((await refusal(ask(client))) === null ? true : undefined))).toBe(
      true,
    );
  });

  it('refuses a team with no credits with insufficient_quota, whatever its member holds', async () => {
    const created = await carol.session.post(`/api/teams/${teamB}/keys`, {
      name: 'support bot',
      group: 'default',
    });
    expect(created.status).toBe(201);
    carolKey = { id: created.body.key.id, secret: created.body.secret };
    const message = await refusal(ask(sdk(carolKey.secret)));
    // The team's account is out of credits, not the member's own: the message says whose.
    expect(message).toMatch(/your team's account has no credits left/);
    expect(message).not.toMatch(/budget/);
  });

  it("refuses a team admin reaching another team's users with 403, each refusal audited", async () => {
    const tries = [
      () => alice.session.get(`/api/teams/${teamB}/keys`),
      () => alice.session.post(`/api/teams/${teamB}/keys`, { name: 'x', group: 'default', userId: carol.id }),
      () => alice.session.post(`/api/teams/${teamA}/keys`, { name: 'x', group: 'default', userId: carol.id }),
      () => alice.session.post(`/api/teams/${teamA}/keys/${carolKey.id}/revoke`),
      () => alice.session.get(`/api/teams/${teamB}/usage`),
      () => bob.session.get(`/api/teams/${teamA}/members`),
    ];
    for (const attempt of tries) {
      const res = await attempt();
      expect(res.status).toBe(403);
      expect(res.body).toMatchObject({ error: { code: 'forbidden' } });
    }
    const refusedB = await audited('access.refused', teamB);
    expect(refusedB.map((e) => [e.actor_email, e.outcome, e.target_type])).toEqual([
      ['alice@teams.test', 'refused', 'team'],
      ['alice@teams.test', 'refused', 'team'],
      ['alice@teams.test', 'refused', 'team'],
    ]);
    const refusedA = await audited('access.refused', teamA);
    expect(refusedA.map((e) => [e.actor_email, e.reason])).toEqual([
      ['alice@teams.test', expect.stringContaining('not a member of the team')],
      ['alice@teams.test', expect.stringContaining("which is not the team's")],
      ['bob@teams.test', expect.stringContaining('not a team admin')],
    ]);
    // Carol's key still works as it did (refused for the team's balance, not revoked).
    const still = await gw.db.db
      .selectFrom('api_keys')
      .select('status')
      .where('id', '=', carolKey.id)
      .executeTakeFirst();
    expect(still?.status).toBe('active');
  });

  it("lets a team admin see the team's usage and logs, and revoke a member's team key", async () => {
    const usage = await alice.session.get(`/api/teams/${teamA}/usage`);
    expect(usage.status).toBe(200);
    expect(usage.body.totals.requests).toBeGreaterThanOrEqual(4);
    expect(usage.body.balanceCredits).toBeLessThan(100);
    const logs = await alice.session.get(`/api/teams/${teamA}/logs`);
    expect(logs.body.items.length).toBeGreaterThanOrEqual(4);
    expect(new Set(logs.body.items.map((i: { teamId: string }) => i.teamId))).toEqual(new Set([teamA]));
    // Bob's personal usage leaves his team's spend out.
    expect((await bob.session.get('/api/usage')).body.totals.requests).toBe(0);

    const keys = await alice.session.get(`/api/teams/${teamA}/keys`);
    expect(keys.body.keys.map((k: { id: string }) => k.id)).toEqual([bobKey.id]);
    const revoked = await alice.session.post(`/api/teams/${teamA}/keys/${bobKey.id}/revoke`);
    expect(revoked.status).toBe(200);
    expect(revoked.body.key.status).toBe('revoked');
    expect((await audited('key.revoke', bobKey.id))[0]).toMatchObject({ actor_email: 'alice@teams.test' });
    await eventually(async () => {
      try {
        await ask(sdk(bobKey.secret));
        return undefined;
      } catch (err) {
        return (err as APIError).status === 401 ? true : undefined;
      }
    });
  });

  it('removes a member (its team keys stop working) and deletes only a team without keys', async () => {
    const k = await bob.session.post(`/api/teams/${teamA}/keys`, { name: 'second', group: 'default' });
    expect(k.status).toBe(201);
    expect(await refusal(ask(sdk(k.body.secret)))).toBeNull();
    const removed = await admin.request('DELETE', `/api/admin/teams/${teamA}/members/${bob.id}`);
    expect(removed.status).toBe(200);
    expect((await audited('team.member.remove', teamA)).map((e) => e.before)).toEqual([
      { userId: bob.id, admin: false },
    ]);
    await eventually(async () => {
      try {
        await ask(sdk(k.body.secret));
        return undefined;
      } catch (err) {
        return (err as APIError).status === 401 ? true : undefined;
      }
    });

    expect((await admin.request('DELETE', `/api/admin/teams/${teamA}`)).status).toBe(409);
    const c = (await admin.post('/api/admin/teams', { name: 'Empty' })).body.team.id as string;
    expect((await admin.request('DELETE', `/api/admin/teams/${c}`)).status).toBe(200);
    expect((await audited('team.delete', c))[0]?.before).toEqual({ name: 'Empty', groups: [] });
  });
});
