import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import {
  deleteTeamMember,
  insertApiKey,
  insertBudget,
  insertTeam,
  updateTeam,
  upsertTeamMember,
} from '#libs/db';
import { createTestDatabase, seedUserWithKey, type TestDatabase } from '../../../../test/support/db.js';
import { findApiKeysByHashes } from '#libs/db';
import { KeyLookupBatcher, keyLookupFromDb, keyRecordOf } from './key-lookup.js';

let t: TestDatabase;

beforeAll(async () => {
  t = await createTestDatabase('key_lookup_teams');
}, 30_000);
afterAll(() => t.drop());

describe('key lookup of a team key', () => {
  it("carries its team and the team's budgets, and stops working when its owner leaves or the team drops its group", async () => {
    const { userId } = await seedUserWithKey(t.db);
    const team = await insertTeam(t.db, { name: 'lookup-team', groups: ['default'], createdBy: null });
    await upsertTeamMember(t.db, { teamId: team.id, userId, isAdmin: false });
    const hash = randomBytes(32).toString('hex');
    const key = await insertApiKey(t.db, {
      user_id: userId,
      team_id: team.id,
      key_hash: hash,
      display_prefix: 'sk-team...abcd',
      group_name: 'default',
    });
    const teamBudget = await insertBudget(t.db, {
      user_id: null,
      team_id: team.id,
      key_id: null,
      period: 'month',
      window_kind: 'calendar_utc',
      limit_nanos: 1_000,
      model_group: null,
      models: null,
      created_by: null,
    });
    await insertBudget(t.db, {
      user_id: userId,
      key_id: null,
      period: 'day',
      window_kind: 'calendar_utc',
      limit_nanos: 5,
      model_group: null,
      models: null,
      created_by: null,
    });
    const lookup = keyLookupFromDb(t.db);

    const record = await lookup(hash);
    expect(record).toMatchObject({ id: key.id, userId, teamId: team.id, status: 'active' });
    // The team's budget, not the member's own.
    expect(record?.budgets?.map((b) => b.id)).toEqual([teamBudget.id]);

    await updateTeam(t.db, team.id, { groups: ['other'] });
    expect((await lookup(hash))?.status).toBe('revoked');
    await updateTeam(t.db, team.id, { groups: ['default', 'other'] });
    expect((await lookup(hash))?.status).toBe('active');

    await deleteTeamMember(t.db, team.id, userId);
    expect((await lookup(hash))?.status).toBe('revoked');
  });

  it("leaves a user's own key as it was: no team, usable", async () => {
    const { keyHash, keyId } = await seedUserWithKey(t.db);
    expect(await keyLookupFromDb(t.db)(keyHash)).toMatchObject({ id: keyId, teamId: null, status: 'active' });
  });
});

describe('batched key lookup', () => {
  it('answers each caller with its own key, in one statement, a revoked key revoked and an unknown one null', async () => {
    const seeded = await Promise.all(Array.from({ length: 6 }, () => seedUserWithKey(t.db)));
    const revoked = seeded[3]!;
    await sql`update api_keys set status = 'revoked' where id = ${revoked.keyId}`.execute(t.db);
    const statements: string[][] = [];
    // One statement out at a time: every lookup asked while it runs shares the next one.
    const batcher = new KeyLookupBatcher(
      (hashes) => (statements.push([...hashes]), findApiKeysByHashes(t.db, hashes)),
      1,
    );
    const unknown = randomBytes(32).toString('hex');
    const asked = [...seeded.map((s) => s.keyHash), unknown, seeded[0]!.keyHash];
    const records = await Promise.all(asked.map((h) => batcher.lookup(h)));
    // The first key again, asked while its own statement was out, rides in the next one (the
    // resolver shares one lookup per hash before this).
    expect(statements).toEqual([[asked[0]], asked.slice(1)]);
    expect(records.map((r) => r?.id ?? null)).toEqual([
      ...seeded.map((s) => s.keyId),
      null,
      seeded[0]!.keyId,
    ]);
    expect(records.map((r) => r?.userId ?? null)).toEqual([
      ...seeded.map((s) => s.userId),
      null,
      seeded[0]!.userId,
    ]);
    expect(records.map((r) => r?.status ?? null)).toEqual([
      'active',
      'active',
      'active',
      'revoked',
      'active',
      'active',
      null,
      'active',
    ]);
  });

  it('reads what the two-statement lookup read: the key, its limits and budgets, exact int8', async () => {
    const { userId, keyId, keyHash } = await seedUserWithKey(t.db);
    await sql`update api_keys set spend_limit_nanos = 9007199254740993, rpm_limit = 7 where id = ${keyId}`.execute(
      t.db,
    );
    const own = await insertBudget(t.db, {
      user_id: userId,
      key_id: null,
      period: 'day',
      window_kind: 'rolling',
      limit_nanos: '9007199254740995',
      model_group: 'default',
      models: null,
      created_by: null,
    });
    const ofKey = await insertBudget(t.db, {
      user_id: userId,
      key_id: keyId,
      period: 'lifetime',
      window_kind: 'calendar_utc',
      limit_nanos: 3,
      model_group: null,
      models: ['m1', 'm2'],
      created_by: null,
    });
    const [row] = await findApiKeysByHashes(t.db, [keyHash]);
    expect(keyRecordOf(row!)).toEqual({
      id: keyId,
      userId,
      group: 'default',
      status: 'active',
      expiresAt: null,
      spendLimitNanos: '9007199254740993',
      rpmLimit: 7,
      tpmLimit: null,
      teamId: null,
      budgets: [
        {
          id: own.id,
          keyId: null,
          period: 'day',
          window: 'rolling',
          limitNanos: '9007199254740995',
          modelGroup: 'default',
          models: null,
        },
        {
          id: ofKey.id,
          keyId,
          period: 'lifetime',
          window: 'calendar_utc',
          limitNanos: '3',
          modelGroup: null,
          models: ['m1', 'm2'],
        },
      ],
    });
  });
});
