import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { createTestDatabase, seedUserWithKey, type TestDatabase } from '../../../test/support/db.js';
import { insertApiKey } from './api-keys.repository.js';
import { insertBudget } from './budgets.repository.js';
import { insertCharges, settledRequestIds } from './charges.repository.js';
import { lockAndLoadQuota, lockAndLoadQuotaAll, lockDurableQuota } from './quota-balances.repository.js';
import { insertTeam, lockDurableTeamQuota } from './teams.repository.js';

let t: TestDatabase;

/** Resolves once a statement of this database waits for a lock (another transaction's row). */
async function waitForLockWait(): Promise<void> {
  for (let i = 0; i < 500; i++) {
    const { rows } = await sql<{ n: number }>`
      select count(*)::int as n from pg_stat_activity
      where datname = current_database() and wait_event_type = 'Lock'`.execute(t.db);
    if (rows[0]!.n > 0) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error('no statement waited for a lock');
}
beforeAll(async () => {
  t = await createTestDatabase('quota_balances');
});
afterAll(() => t.drop());

/** A cold account's load as the rebuild runs it: the rows locked and the rest read, then the pending ids asked about. */
const load = (userIds: string[], teamIds: string[], pending: string[]) =>
  t.db.transaction().execute(async (trx) => ({
    accounts: await lockAndLoadQuotaAll(trx, userIds, teamIds),
    settled: await settledRequestIds(trx, pending),
  }));

describe('lockAndLoadQuota', () => {
  it('reads in one statement what the five statements read: balances, key spends, budgets', async () => {
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

  it('answers nothing for no account', async () => {
    expect(await load([], [], [])).toEqual({ accounts: [], settled: new Set() });
  });

  it("tells whether budgets count in a team: the team's own, or one of a team key's", async () => {
    const owner = await seedUserWithKey(t.db, { grantNanos: 1n });
    const team = (name: string) =>
      insertTeam(t.db, {
        name: `${name}-${randomBytes(3).toString('hex')}`,
        groups: ['default'],
        createdBy: null,
      });
    const [none, own, keyed] = await Promise.all([team('none'), team('own'), team('keyed')]);
    const budget = {
      period: 'day',
      window_kind: 'calendar_utc',
      limit_nanos: 5,
      model_group: null,
      models: null,
      created_by: null,
    } as const;
    await insertBudget(t.db, { ...budget, user_id: null, team_id: own.id, key_id: null });
    const key = await insertApiKey(t.db, {
      user_id: owner.userId,
      team_id: keyed.id,
      key_hash: randomBytes(32).toString('hex'),
      display_prefix: 'sk-t',
      group_name: 'default',
    });
    await insertBudget(t.db, { ...budget, user_id: owner.userId, key_id: key.id });
    const { accounts } = await load([owner.userId], [none.id, own.id, keyed.id], []);
    const hasBudgets = new Map(accounts.map((q) => [q.userId, q.hasBudgets]));
    expect(hasBudgets).toEqual(
      new Map([
        [owner.userId, false],
        [none.id, false],
        [own.id, true],
        [keyed.id, true],
      ]),
    );
  });

  it('leaves out an account whose row another transaction inserted meanwhile; asked again, it is locked', async () => {
    const a = await seedUserWithKey(t.db, { grantNanos: 0n });
    await sql`delete from quota_balances where user_id = ${a.userId}`.execute(t.db);
    let inserted!: () => void;
    const insertedYet = new Promise<void>((r) => (inserted = r));
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const other = t.db.transaction().execute(async (trx) => {
      await sql`insert into quota_balances (user_id, balance_nanos) values (${a.userId}, 42)`.execute(trx);
      inserted();
      await held;
    });
    await insertedYet;
    const loading = t.db.transaction().execute(async (trx) => ({
      first: await lockAndLoadQuota(trx, [a.userId], []),
      again: await lockAndLoadQuota(trx, [a.userId], []),
    }));
    // The load waits for the other transaction's row before that one commits.
    await waitForLockWait();
    release();
    await other;
    const { first, again } = await loading;
    expect(first).toEqual([]);
    expect(again.map((q) => q.balanceNanos)).toEqual([42n]);
  });

  it('reads key spends after the lock: a charge that committed while the lock was awaited is in them as in the balance', async () => {
    const a = await seedUserWithKey(t.db, { grantNanos: 1_000n });
    // Another transaction holds the row (a worker settling); the load waits for it.
    let locked!: () => void;
    const lockedYet = new Promise<void>((r) => (locked = r));
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const worker = t.db.transaction().execute(async (trx) => {
      await lockDurableQuota(trx, [a.userId]);
      locked();
      await held;
      await insertCharges(trx, [{ requestId: 'late', userId: a.userId, keyId: a.keyId, amountNanos: 7 }]);
    });
    await lockedYet;
    const loading = load([a.userId], [], ['late']);
    await waitForLockWait();
    release();
    await worker;
    const loaded = await loading;
    const [quota] = loaded.accounts;
    expect(quota!.balanceNanos).toBe(993n);
    expect(quota!.keySpent).toEqual(new Map([[a.keyId, 7n]]));
    expect(loaded.settled).toEqual(new Set(['late']));
  });
});
