import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import {
  deleteTeamMember,
  insertApiKey,
  insertBudget,
  insertTeam,
  updateTeam,
  upsertTeamMember,
} from '#libs/db';
import { createTestDatabase, seedUserWithKey, type TestDatabase } from '../../../../test/support/db.js';
import { keyLookupFromDb } from './key-lookup.js';

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
