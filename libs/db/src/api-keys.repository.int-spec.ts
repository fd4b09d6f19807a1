import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { createTestDatabase, seedUserWithKey, type TestDatabase } from '../../../test/support/db.js';
import { findApiKeyByHash, insertApiKey, touchLastUsed } from './api-keys.repository.js';
import { findOrCreateUserByEmail, getQuotaBalance } from './users.repository.js';

let t: TestDatabase;
beforeAll(async () => {
  t = await createTestDatabase('keys');
});
afterAll(async () => {
  await t.drop();
});

describe('users', () => {
  it('creates a user once, lowercased, with its initial grant', async () => {
    const first = await findOrCreateUserByEmail(t.db, '  Ada@Example.COM ', 5_000_000_000n);
    const again = await findOrCreateUserByEmail(t.db, 'ada@example.com', 9n);
    expect(first.created).toBe(true);
    expect(first.user).toMatchObject({
      email: 'ada@example.com',
      role: 'member',
      status: 'active',
      password_hash: null,
    });
    expect(again).toEqual({ user: first.user, created: false });
    expect((await getQuotaBalance(t.db, first.user.id))?.balance_nanos).toBe('5000000000');
  });

  it('survives concurrent creation of the same email', async () => {
    const results = await Promise.all(
      [1, 2, 3, 4].map(() => findOrCreateUserByEmail(t.db, 'race@example.com', 1n)),
    );
    expect(results.filter((r) => r.created)).toHaveLength(1);
    expect(new Set(results.map((r) => r.user.id)).size).toBe(1);
  });
});

describe('api keys', () => {
  it('finds a key by hash with what the edge needs, including the owner status', async () => {
    const { user } = await findOrCreateUserByEmail(t.db, 'keys@example.com', 0n);
    const hash = randomBytes(32).toString('hex');
    const expires = new Date('2031-01-01T00:00:00Z');
    const key = await insertApiKey(t.db, {
      user_id: user.id,
      name: 'ci',
      key_hash: hash,
      display_prefix: 'sk-abcd...wxyz',
      group_name: 'default',
      expires_at: expires,
      spend_limit_nanos: 10n ** 18n,
    });
    expect(await findApiKeyByHash(t.db, hash)).toEqual({
      id: key.id,
      user_id: user.id,
      group_name: 'default',
      status: 'active',
      expires_at: expires,
      spend_limit_nanos: '1000000000000000000',
      rpm_limit: null,
      tpm_limit: null,
      user_status: 'active',
      // A personal key: no team, so no team that could have dropped its group.
      team_id: null,
      team_allows: true,
    });
    await t.db.updateTable('users').set({ status: 'disabled' }).where('id', '=', user.id).execute();
    expect((await findApiKeyByHash(t.db, hash))?.user_status).toBe('disabled');
    expect(await findApiKeyByHash(t.db, randomBytes(32).toString('hex'))).toBeUndefined();
  });

  it('refuses a hash that is not 64 lowercase hex chars, and a duplicate hash', async () => {
    const { userId, keyHash } = await seedUserWithKey(t.db);
    const base = { user_id: userId, display_prefix: 'sk-x...y', group_name: 'default' };
    await expect(insertApiKey(t.db, { ...base, key_hash: 'ABC' })).rejects.toMatchObject({ code: '23514' });
    await expect(insertApiKey(t.db, { ...base, key_hash: keyHash })).rejects.toMatchObject({ code: '23505' });
  });

  it('moves last_used_at forward for many keys in one statement, never back', async () => {
    const a = await seedUserWithKey(t.db);
    const b = await seedUserWithKey(t.db);
    const later = new Date('2030-05-01T10:00:00Z');
    const earlier = new Date('2030-05-01T09:00:00Z');
    await touchLastUsed(
      t.db,
      new Map([
        [a.keyId, later],
        [b.keyId, earlier],
      ]),
    );
    await touchLastUsed(t.db, new Map([[a.keyId, earlier]]));
    const rows = await t.db
      .selectFrom('api_keys')
      .select(['id', 'last_used_at'])
      .where('id', 'in', [a.keyId, b.keyId])
      .execute();
    const byId = new Map(rows.map((r) => [r.id, r.last_used_at]));
    expect(byId.get(a.keyId)).toEqual(later);
    expect(byId.get(b.keyId)).toEqual(earlier);
  });
});
