import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { getQuotaBalance, getTeamBalance, insertApiKey, insertTeam, upsertTeamMember } from '#libs/db';
import { keyAccountSlot, NO_LIMITS, settleRequest } from '#libs/quota';
import { createRedis, type RedisClient, redisKeys } from '#libs/redis';
import {
  createTestDatabase,
  requestLogJob,
  seedUserWithKey,
  type TestDatabase,
} from '../../../../test/support/db.js';
import { dropRedisPrefix, TEST_REDIS_URL, uniqueRedisPrefix } from '../../../../test/support/redis.js';
import { PendingCharges } from '../quota/pending-charges.service.js';
import { RequestLogWriter } from './request-log.writer.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const prefix = uniqueRedisPrefix('team-charges');
const keys = redisKeys(prefix);
let t: TestDatabase;
let redis: RedisClient;
let writer: RequestLogWriter;

beforeAll(async () => {
  t = await createTestDatabase('team_charges');
  redis = createRedis(TEST_REDIS_URL, { name: 'team-charges' });
  writer = new RequestLogWriter(t.db, new PendingCharges(redis, keys));
}, 30_000);
afterAll(async () => {
  redis.disconnect();
  await t.drop();
  await dropRedisPrefix(prefix);
});

describe('the worker charges a team key to its team', () => {
  it("writes the team on the log and the charge, debits the team's balance, not the member's, and clears the team's pending entry", async () => {
    const { userId, keyId: ownKey } = await seedUserWithKey(t.db, { grantNanos: 1_000n });
    const team = await insertTeam(t.db, { name: 'worker-team', groups: ['default'], createdBy: null });
    await upsertTeamMember(t.db, { teamId: team.id, userId, isAdmin: false });
    const teamKey = await insertApiKey(t.db, {
      user_id: userId,
      team_id: team.id,
      key_hash: randomBytes(32).toString('hex'),
      display_prefix: 'sk-team...abcd',
      group_name: 'default',
    });
    const slot = keyAccountSlot({ userId, teamId: team.id });
    const jobs = [
      requestLogJob({ requestId: 'wt-team', userId, keyId: teamKey.id, costNanos: 400 }),
      requestLogJob({ requestId: 'wt-own', userId, keyId: ownKey, costNanos: 30 }),
    ];
    // The edge's settle of the team request left it pending in the team's slot.
    await settleRequest(
      redis,
      keys,
      {
        userId,
        accountId: slot,
        keyId: teamKey.id,
        group: 'default',
        keySpendLimitNanos: null,
        keyLimits: NO_LIMITS,
        groupLimits: NO_LIMITS,
      },
      { requestId: 'wt-team', costNanos: 400, tokens: 0 },
    );
    expect(await redis.hkeys(keys.quotaPending(slot))).toEqual(['wt-team']);

    expect(await writer.writeBatch(jobs)).toEqual([null, null]);

    const logs = await t.db
      .selectFrom('request_logs')
      .select(['request_id', 'team_id'])
      .where('request_id', 'in', ['wt-team', 'wt-own'])
      .orderBy('request_id')
      .execute();
    expect(logs).toEqual([
      { request_id: 'wt-own', team_id: null },
      { request_id: 'wt-team', team_id: team.id },
    ]);
    const charges = await t.db
      .selectFrom('charges')
      .select(['request_id', 'user_id', 'team_id', 'amount_nanos'])
      .where('request_id', 'in', ['wt-team', 'wt-own'])
      .orderBy('request_id')
      .execute();
    expect(charges).toEqual([
      { request_id: 'wt-own', user_id: userId, team_id: null, amount_nanos: '30' },
      { request_id: 'wt-team', user_id: userId, team_id: team.id, amount_nanos: '400' },
    ]);
    expect(await getTeamBalance(t.db, team.id)).toEqual({ balance_nanos: '-400', spent_nanos: '400' });
    expect(await getQuotaBalance(t.db, userId)).toMatchObject({ balance_nanos: '970', spent_nanos: '30' });
    const spent = await t.db
      .selectFrom('api_keys')
      .select('spent_nanos')
      .where('id', '=', teamKey.id)
      .executeTakeFirstOrThrow();
    expect(spent.spent_nanos).toBe('400');
    // The pending entry leaves after the commit (fire and forget).
    for (let i = 0; i < 200 && (await redis.hlen(keys.quotaPending(slot))) > 0; i++) await sleep(10);
    expect(await redis.hlen(keys.quotaPending(slot))).toBe(0);

    // A redelivered batch charges nobody twice.
    expect(await writer.writeBatch(jobs)).toEqual([null, null]);
    expect(await getTeamBalance(t.db, team.id)).toEqual({ balance_nanos: '-400', spent_nanos: '400' });

    // The accounts a sweep rebuilds after writing estimates: the team's and the member's own.
    expect((await writer.accountsOf(jobs)).sort()).toEqual([slot, userId].sort());
  });
});
