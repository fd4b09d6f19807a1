import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { createTestDatabase, seedUserWithKey, type TestDatabase } from '../../../test/support/db.js';
import { insertApiKey } from './api-keys.repository.js';
import { insertBudget } from './budgets.repository.js';
import { insertCharges } from './charges.repository.js';
import { durableQuotaDetails, lockDurableBalances, lockDurableQuota } from './quota-balances.repository.js';
import { insertTeam, lockDurableTeamQuota } from './teams.repository.js';

let t: TestDatabase;
beforeAll(async () => {
  t = await createTestDatabase('quota_balances');
});
afterAll(() => t.drop());

/** A cold account's load as the rebuild runs it: the rows locked, then the rest read. */
const load = (userIds: string[], teamIds: string[], pending: string[]) =>
  t.db.transaction().execute(async (trx) => {
    const locked = await lockDurableBalances(trx, userIds, teamIds);
    return durableQuotaDetails(trx, locked, pending);
  });

describe('lockDurableBalances, then durableQuotaDetails', () => {
  it('read in two statements what the five statements read: balances, key spends, settled ids, budgets', async () => {
    const a = await seedUserWithKey(t.db, { grantNanos: 9_007_199_254_740_993n });
    const b = await seedUserWithKey(t.db, { grantNanos: 500n });
    await insertBudget(t.db, {
      user_id: b.userId,
      key_id: null,
      period: 'day',
      window_kind: 'calendar_utc',
      limit_nanos: 5,
      model_group: null,
      models: null,
      created_by: null,
    });
    const team = await insertTeam(t.db, {
      name: `t-${randomBytes(3).toString('hex')}`,
      groups: ['default'],
      createdBy: null,
    });
    const teamKey = await insertApiKey(t.db, {
      user_id: a.userId,
      team_id: team.id,
      key_hash: randomBytes(32).toString('hex'),
      display_prefix: 'sk-t',
      group_name: 'default',
    });
    await insertCharges(t.db, [
      { requestId: 'q1', userId: a.userId, keyId: a.keyId, amountNanos: 3 },
      { requestId: 'q2', userId: a.userId, keyId: teamKey.id, teamId: team.id, amountNanos: 4 },
    ]);
    // A user without a balance row gets one at zero, locked like the others.
    await sql`delete from quota_balances where user_id = ${b.userId}`.execute(t.db);
    const unknown = '00000000-0000-4000-8000-000000000000';

    const loaded = await load([b.userId, a.userId, unknown], [team.id], ['q1', 'q2', 'q9']);
    const long = await t.db.transaction().execute(async (trx) => ({
      users: await lockDurableQuota(trx, [a.userId, b.userId]),
      teams: await lockDurableTeamQuota(trx, [team.id]),
    }));
    expect([...loaded.settled].sort()).toEqual(['q1', 'q2']);
    const byId = new Map(loaded.accounts.map((q) => [q.userId, q]));
    expect(byId.size).toBe(3);
    for (const [id, quota] of [...long.users, ...long.teams]) {
      expect(byId.get(id)).toMatchObject({ balanceNanos: quota.balanceNanos, keySpent: quota.keySpent });
    }
    expect(byId.get(a.userId)).toMatchObject({
      team: false,
      hasBudgets: false,
      balanceNanos: 9_007_199_254_740_990n,
    });
    expect(byId.get(a.userId)!.keySpent).toEqual(new Map([[a.keyId, 3n]]));
    expect(byId.get(b.userId)).toMatchObject({ team: false, hasBudgets: true, balanceNanos: 0n });
    expect(byId.get(team.id)).toMatchObject({ team: true, hasBudgets: false });
    expect(byId.get(team.id)!.keySpent).toEqual(new Map([[teamKey.id, 4n]]));
  });

  it('answers the settled ids with no account asked, and nothing for none', async () => {
    expect(await load([], [], [])).toEqual({ accounts: [], settled: new Set() });
    expect((await load([], [], ['q1', 'nope'])).settled).toEqual(new Set(['q1']));
  });

  it('reads key spends after the lock: a charge that committed while the lock was awaited is in them as in the balance', async () => {
    const a = await seedUserWithKey(t.db, { grantNanos: 1_000n });
    // Another transaction holds the row (a worker settling); the load waits for it.
    const worker = t.db.transaction().execute(async (trx) => {
      await lockDurableQuota(trx, [a.userId]);
      await new Promise((r) => setTimeout(r, 150));
      await insertCharges(trx, [{ requestId: 'late', userId: a.userId, keyId: a.keyId, amountNanos: 7 }]);
    });
    await new Promise((r) => setTimeout(r, 30));
    const loaded = await load([a.userId], [], ['late']);
    await worker;
    const [quota] = loaded.accounts;
    expect(quota!.balanceNanos).toBe(993n);
    expect(quota!.keySpent).toEqual(new Map([[a.keyId, 7n]]));
    expect(loaded.settled).toEqual(new Set(['late']));
  });
});
