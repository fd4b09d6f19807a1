import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { type Redis } from 'ioredis';
import {
  budgetsForKey,
  getQuotaBalance,
  getTeamBalance,
  insertApiKey,
  insertBudget,
  insertCharges,
  insertTeam,
  ledgerBalance,
  listTeamGrants,
  teamLedgerBalance,
  upsertTeamMember,
} from '#libs/db';
import { createRedis, redisKeys } from '#libs/redis';
import { createTestDatabase, seedUserWithKey, type TestDatabase } from '../../../test/support/db.js';
import { dropRedisPrefix, TEST_REDIS_URL, uniqueRedisPrefix } from '../../../test/support/redis.js';
import { keyAccountSlot } from './accounts.js';
import { type AdmissionSubject, NO_LIMITS } from './admission.js';
import { budgetSpend } from './budget-rebuild.js';
import { budgetOfRow, budgetsFor } from './budgets.js';
import { grantTeamCredits, readBalance, readTeamBalance } from './grants.js';
import { admitRequest, forgetSettled, settleRequest } from './quota.store.js';
import { type QuotaDeps, rebuildQuotas } from './rebuild.js';

const prefix = uniqueRedisPrefix('team-accounts');
let t: TestDatabase;
let redis: Redis;
let deps: QuotaDeps;
const NOW = Date.UTC(2026, 10, 26, 12, 0, 0);
const now = (): number => NOW;

beforeAll(async () => {
  t = await createTestDatabase('team_accounts');
  redis = createRedis(TEST_REDIS_URL, { name: 'team-accounts' });
  deps = { db: t.db, redis, keys: redisKeys(prefix) };
});
afterAll(async () => {
  redis.disconnect();
  await t.drop();
  await dropRedisPrefix(prefix);
});

interface Fixture {
  readonly userId: string;
  readonly ownKeyId: string;
  readonly teamId: string;
  readonly teamKeyId: string;
  readonly slot: string;
  /** The admission subject of the team key, with the budgets its record would carry. */
  subject(): Promise<AdmissionSubject>;
}

/** A member with 1,000 nanocredits of its own, in a team with `teamNanos` and a key of the team. */
async function fixture(teamNanos: bigint): Promise<Fixture> {
  const { userId, keyId: ownKeyId } = await seedUserWithKey(t.db, { grantNanos: 1_000n });
  const team = await insertTeam(t.db, { name: `t-${userId}`, groups: ['default'], createdBy: null });
  await upsertTeamMember(t.db, { teamId: team.id, userId, isAdmin: false });
  const key = await insertApiKey(t.db, {
    user_id: userId,
    team_id: team.id,
    key_hash: randomBytes(32).toString('hex'),
    display_prefix: 'sk-team...abcd',
    group_name: 'default',
  });
  if (teamNanos !== 0n)
    await grantTeamCredits(deps, { teamId: team.id, nanos: teamNanos, grantedBy: null, note: 'start' });
  const slot = keyAccountSlot({ userId, teamId: team.id });
  return {
    userId,
    ownKeyId,
    teamId: team.id,
    teamKeyId: key.id,
    slot,
    async subject() {
      const rows = await budgetsForKey(t.db, key.id, userId, team.id);
      return {
        userId,
        accountId: slot,
        keyId: key.id,
        group: 'default',
        keySpendLimitNanos: null,
        keyLimits: NO_LIMITS,
        groupLimits: NO_LIMITS,
        budgets: budgetsFor(rows.map(budgetOfRow), key.id, 'm', new Map()),
      };
    },
  };
}

/** The worker's part: the charge committed (with the key's team), then dropped from pending. */
async function workerSettles(f: Fixture, requestId: string, cost: number): Promise<void> {
  const charge = {
    requestId,
    userId: f.userId,
    keyId: f.teamKeyId,
    teamId: f.teamId,
    amountNanos: cost,
    startedAt: new Date(NOW).toISOString(),
    model: 'm',
  };
  await insertCharges(t.db, [charge]);
  await forgetSettled(redis, deps.keys, [charge]);
}

describe('team accounts', () => {
  it("admits and settles a team key against the team's balance, never its member's", async () => {
    const f = await fixture(5_000n);
    const s = await f.subject();
    expect(await admitRequest(redis, deps.keys, s, NOW)).toEqual({ ok: false, reason: 'not_loaded' });
    const seeded = await rebuildQuotas(deps, [f.slot], { mode: 'seed', now });
    expect(seeded.get(f.slot)).toEqual({ written: true, balanceNanos: 5_000n });
    expect(await admitRequest(redis, deps.keys, s, NOW)).toEqual({ ok: true });

    await settleRequest(
      redis,
      deps.keys,
      s,
      { requestId: 'ta-1', costNanos: 300, tokens: 0, startedAtMs: NOW },
      NOW,
    );
    expect((await readTeamBalance(deps, f.teamId)).liveNanos).toBe(4_700n);
    expect(await redis.hget(deps.keys.quotaKeySpent(f.slot), f.teamKeyId)).toBe('300');
    expect(await redis.hkeys(deps.keys.quotaPending(f.slot))).toEqual(['ta-1']);
    // The member's own account is not touched (nor loaded) by team spend.
    expect(await redis.exists(deps.keys.quotaBalance(f.userId))).toBe(0);

    await workerSettles(f, 'ta-1', 300);
    expect(await getTeamBalance(t.db, f.teamId)).toEqual({ balance_nanos: '4700', spent_nanos: '300' });
    expect(await redis.hkeys(deps.keys.quotaPending(f.slot))).toEqual([]);
    expect(await getQuotaBalance(t.db, f.userId)).toMatchObject({ balance_nanos: '1000', spent_nanos: '0' });
    expect(await teamLedgerBalance(t.db, f.teamId)).toBe(4_700n);
    expect(await ledgerBalance(t.db, f.userId)).toBe(1_000n);
    expect(await readBalance(deps, f.userId)).toMatchObject({ balanceNanos: 1_000n, spentNanos: 0n });
    const charge = await t.db
      .selectFrom('charges')
      .selectAll()
      .where('request_id', '=', 'ta-1')
      .executeTakeFirstOrThrow();
    expect(charge).toMatchObject({ user_id: f.userId, key_id: f.teamKeyId, team_id: f.teamId });
  });

  it('refuses a team with no credits left, whatever its member holds', async () => {
    const f = await fixture(0n);
    const s = await f.subject();
    await rebuildQuotas(deps, [f.slot], { mode: 'seed', now });
    expect(await admitRequest(redis, deps.keys, s, NOW)).toMatchObject({ ok: false, reason: 'balance' });
  });

  it('rebuilds a team copy exactly: settled charges dropped, pending ones subtracted once', async () => {
    const f = await fixture(10_000n);
    const s = await f.subject();
    await rebuildQuotas(deps, [f.slot], { mode: 'seed', now });
    for (const [id, cost] of [
      ['tr-1', 100],
      ['tr-2', 200],
      ['tr-3', 400],
    ] as const)
      await settleRequest(
        redis,
        deps.keys,
        s,
        { requestId: id, costNanos: cost, tokens: 0, startedAtMs: NOW },
        NOW,
      );
    await workerSettles(f, 'tr-1', 100);
    const [result] = (await rebuildQuotas(deps, [f.slot], { mode: 'force', now })).values();
    expect(result).toEqual({ written: true, balanceNanos: 9_300n });
    expect((await redis.hkeys(deps.keys.quotaPending(f.slot))).sort()).toEqual(['tr-2', 'tr-3']);
    expect(await redis.hget(deps.keys.quotaKeySpent(f.slot), f.teamKeyId)).toBe('700');
    // The member's rebuild does not see the team key's spend.
    await rebuildQuotas(deps, [f.userId], { mode: 'force', now });
    expect(await redis.hget(deps.keys.quotaKeySpent(f.userId), f.teamKeyId)).toBeNull();
    expect(await redis.get(deps.keys.quotaBalance(f.userId))).toBe('1000');
  });

  it("refuses a team budget by period once the team's keys spent it, and leaves its member's budgets out", async () => {
    const f = await fixture(1_000_000n);
    const budget = await insertBudget(t.db, {
      user_id: null,
      team_id: f.teamId,
      key_id: null,
      period: 'day',
      window_kind: 'calendar_utc',
      limit_nanos: 500,
      model_group: null,
      models: null,
      created_by: null,
    });
    // A budget of the member's own: it does not limit the team key.
    await insertBudget(t.db, {
      user_id: f.userId,
      key_id: null,
      period: 'day',
      window_kind: 'calendar_utc',
      limit_nanos: 1,
      model_group: null,
      models: null,
      created_by: null,
    });
    const s = await f.subject();
    expect(s.budgets?.map((b) => b.id)).toEqual([budget.id]);
    expect((await budgetsForKey(t.db, f.ownKeyId, f.userId)).map((b) => b.team_id)).toEqual([null]);

    await workerSettles(f, 'tb-1', 500);
    await rebuildQuotas(deps, [f.slot], { mode: 'seed', now });
    const verdict = await admitRequest(redis, deps.keys, s, NOW);
    expect(verdict).toMatchObject({ ok: false, reason: 'budget', budget: { id: budget.id } });
    // The durable spend of the team budget is the team's charges; the member's budget saw none.
    expect([...(await budgetSpend(t.db, f.slot, budgetOfRow(budget), new Map(), NOW)).values()]).toEqual([
      500n,
    ]);
    expect([
      ...(
        await budgetSpend(t.db, f.userId, { ...budgetOfRow(budget), keyId: null }, new Map(), NOW)
      ).values(),
    ]).toEqual([]);
  });

  it("counts a team key's own budget in the team's slot, rebuilt there from the key's charges", async () => {
    const f = await fixture(1_000_000n);
    const budget = await insertBudget(t.db, {
      user_id: f.userId,
      key_id: f.teamKeyId,
      period: 'lifetime',
      window_kind: 'calendar_utc',
      limit_nanos: 300,
      model_group: null,
      models: null,
      created_by: null,
    });
    const s = await f.subject();
    expect(s.budgets?.map((b) => b.id)).toEqual([budget.id]);
    await workerSettles(f, 'tk-1', 300);
    await rebuildQuotas(deps, [f.slot], { mode: 'seed', now });
    expect(await redis.get(deps.keys.quotaBudgetSpent(f.slot, budget.id, 0))).toBe('300');
    expect(await admitRequest(redis, deps.keys, s, NOW)).toMatchObject({
      reason: 'budget',
      budget: { id: budget.id },
    });
    // The member's own copy holds no counter of it.
    await rebuildQuotas(deps, [f.userId], { mode: 'force', now });
    expect(await redis.exists(deps.keys.quotaBudgetSpent(f.userId, budget.id, 0))).toBe(0);
  });

  it('records team grants in their own ledger and adds them to a loaded copy', async () => {
    const f = await fixture(100n);
    await rebuildQuotas(deps, [f.slot], { mode: 'seed', now });
    expect(
      await grantTeamCredits(deps, { teamId: f.teamId, nanos: 900n, grantedBy: f.userId, note: 'more' }),
    ).toBe(1_000n);
    expect(await readTeamBalance(deps, f.teamId)).toEqual({
      balanceNanos: 1_000n,
      spentNanos: 0n,
      liveNanos: 1_000n,
    });
    expect((await listTeamGrants(t.db, f.teamId)).map((g) => [g.amount_nanos, g.note])).toEqual([
      ['900', 'more'],
      ['100', 'start'],
    ]);
    await expect(
      grantTeamCredits(deps, { teamId: f.teamId, nanos: 0n, grantedBy: null, note: '' }),
    ).rejects.toThrow(RangeError);
  });
});
