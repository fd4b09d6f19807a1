import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createTestDatabase, seedUserWithKey, type TestDatabase } from '../../../test/support/db.js';
import { insertCharges } from './charges.repository.js';
import { getQuotaBalance } from './users.repository.js';

let t: TestDatabase;
beforeAll(async () => {
  t = await createTestDatabase('charges');
});
afterAll(async () => {
  await t.drop();
});

async function keySpend(keyId: string): Promise<string | undefined> {
  const row = await t.db
    .selectFrom('api_keys')
    .select('spent_nanos')
    .where('id', '=', keyId)
    .executeTakeFirst();
  return row?.spent_nanos;
}

describe('charges', () => {
  it('debits balances and key spend only for newly inserted charges', async () => {
    const a = await seedUserWithKey(t.db, { grantNanos: 1_000n });
    const b = await seedUserWithKey(t.db, { grantNanos: 1_000n });
    const first = [
      { requestId: 'r1', userId: a.userId, keyId: a.keyId, amountNanos: 100 },
      { requestId: 'r2', userId: a.userId, keyId: a.keyId, amountNanos: 50n },
      { requestId: 'r3', userId: b.userId, keyId: null, amountNanos: '7' },
    ];
    expect((await insertCharges(t.db, first)).sort()).toEqual(['r1', 'r2', 'r3']);
    // Redelivery of r1 and r3 with one new charge: only r4 counts.
    const again = [
      first[0]!,
      first[2]!,
      { requestId: 'r4', userId: b.userId, keyId: b.keyId, amountNanos: 3 },
    ];
    expect(await insertCharges(t.db, again)).toEqual(['r4']);

    expect(await getQuotaBalance(t.db, a.userId)).toMatchObject({ balance_nanos: '850', spent_nanos: '150' });
    expect(await getQuotaBalance(t.db, b.userId)).toMatchObject({ balance_nanos: '990', spent_nanos: '10' });
    expect(await keySpend(a.keyId)).toBe('150');
    expect(await keySpend(b.keyId)).toBe('3');
  });

  it('charges a request id once even when it appears twice in one batch', async () => {
    const u = await seedUserWithKey(t.db, { grantNanos: 0n });
    const charge = { requestId: 'dup-1', userId: u.userId, keyId: u.keyId, amountNanos: 5 };
    expect(await insertCharges(t.db, [charge, charge])).toEqual(['dup-1']);
    expect(await getQuotaBalance(t.db, u.userId)).toMatchObject({ balance_nanos: '-5', spent_nanos: '5' });
  });

  it('keeps amounts beyond 2^53 exact', async () => {
    const u = await seedUserWithKey(t.db, { grantNanos: 2n ** 62n });
    await insertCharges(t.db, [
      { requestId: 'big', userId: u.userId, keyId: null, amountNanos: 2n ** 60n + 1n },
    ]);
    expect((await getQuotaBalance(t.db, u.userId))?.balance_nanos).toBe(String(2n ** 62n - 2n ** 60n - 1n));
  });

  it('rolls back with the surrounding transaction', async () => {
    const u = await seedUserWithKey(t.db, { grantNanos: 100n });
    await expect(
      t.db.transaction().execute(async (trx) => {
        await insertCharges(trx, [
          { requestId: 'rolled-back', userId: u.userId, keyId: u.keyId, amountNanos: 60 },
        ]);
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect(await getQuotaBalance(t.db, u.userId)).toMatchObject({ balance_nanos: '100', spent_nanos: '0' });
    expect(
      await insertCharges(t.db, [
        { requestId: 'rolled-back', userId: u.userId, keyId: u.keyId, amountNanos: 60 },
      ]),
    ).toEqual(['rolled-back']);
  });
});
