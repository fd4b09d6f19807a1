import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { parseConfig } from '#libs/gateway-config';
import {
  budgetSpendByBucket,
  getQuotaBalance,
  getTeamBalance,
  insertApiKey,
  insertCharges,
  insertTeam,
  ledgerBalance,
  teamLedgerBalance,
} from '#libs/db';
import { createTestDatabase, seedUserWithKey, type TestDatabase } from '../../../../test/support/db.js';
import { chargeRetentionCutoff, LogPartitionMaintainer } from './log-partition.maintainer.js';

const config = (days: number) =>
  parseConfig({
    worker: { log_retention_days: days },
    providers: [{ id: 'p', type: 'openai', base_url: 'http://127.0.0.1:1/v1', models: ['m'] }],
    models: [
      { id: 'm', owned_by: 'o', created: 1, pricing: { input_per_million: 1, output_per_million: 1 } },
    ],
    groups: { default: ['m'] },
  });

const NOW = new Date(Date.UTC(2026, 10, 22, 12)); // 2026-11-22 12:00
const DAY_MS = 86_400_000;
/** Days of charges the retention test writes, back from NOW. */
const DAYS = 100;
let t: TestDatabase;

beforeAll(async () => {
  t = await createTestDatabase('charge_retention');
});
afterAll(async () => {
  await t.drop();
});

describe('chargeRetentionCutoff', () => {
  it('keeps charges as long as the logs, at least 62 days, from a UTC midnight; 0 keeps every charge', () => {
    expect(chargeRetentionCutoff(NOW, 90)).toEqual(new Date(Date.UTC(2026, 7, 24)));
    expect(chargeRetentionCutoff(NOW, 7)).toEqual(new Date(Date.UTC(2026, 8, 21)));
    expect(chargeRetentionCutoff(NOW, 0)).toBeNull();
  });
});

describe('charges retention', () => {
  // Timeout: as the worker's other int-specs; the maintainer retires one day per transaction, some
  // 20 days' worth of round trips here, which overran Jest's 5 s default on a loaded CI machine.
  it('retires old charges into daily totals: balances, ledgers and lifetime budgets read the same before and after', async () => {
    const { userId, keyId } = await seedUserWithKey(t.db, { grantNanos: 10_000_000n });
    const team = await insertTeam(t.db, { name: 'retention-team', groups: ['default'], createdBy: null });
    const teamKey = await insertApiKey(t.db, {
      user_id: userId,
      team_id: team.id,
      key_hash: randomBytes(32).toString('hex'),
      display_prefix: 'sk-team...abcd',
      group_name: 'default',
    });
    // DAYS days of charges, three a day: the user's own key (two models), the team's key. Those
    // of days 91 on are past the cutoff: enough whole days to retire (each one a transaction of
    // the maintainer's, two round trips) without hundreds of identical ones.
    const charges = [];
    for (let d = 0; d < DAYS; d++) {
      const at = (h: number) => new Date(NOW.getTime() - d * DAY_MS - h * 3_600_000).toISOString();
      charges.push(
        { requestId: `r-${d}-a`, userId, keyId, amountNanos: 1_000 + d, startedAt: at(1), model: 'm' },
        { requestId: `r-${d}-b`, userId, keyId, amountNanos: 7, startedAt: at(13), model: 'other' },
        {
          requestId: `r-${d}-t`,
          userId,
          keyId: teamKey.id,
          amountNanos: 50 + d,
          startedAt: at(2),
          model: 'm',
          teamId: team.id,
        },
      );
    }
    await insertCharges(t.db, charges);
    const lifetime = (q: { keyId: string | null; models: string[] | null; teamId?: string }) =>
      budgetSpendByBucket(t.db, { userId, fromMs: 0, toMs: null, bucketMs: null, ...q });
    // Independent reads, sent at once rather than one round trip after another.
    const snapshot = async () => {
      const [ledger, teamLedger, balance, teamBalance, userLifetime, keyModelLifetime, teamLifetime] =
        await Promise.all([
          ledgerBalance(t.db, userId),
          teamLedgerBalance(t.db, team.id),
          getQuotaBalance(t.db, userId),
          getTeamBalance(t.db, team.id),
          lifetime({ keyId: null, models: null }),
          lifetime({ keyId, models: ['m'] }),
          lifetime({ keyId: null, models: null, teamId: team.id }),
        ]);
      return {
        ledger,
        teamLedger,
        balance: balance?.balance_nanos,
        teamBalance: teamBalance?.balance_nanos,
        userLifetime,
        keyModelLifetime,
        teamLifetime,
      };
    };
    const before = await snapshot();
    expect(before.ledger).toBe(BigInt(before.balance!));

    const maintainer = new LogPartitionMaintainer(t.db, config(90));
    const { chargesRetired } = await maintainer.maintain(NOW);

    // Charges started before 2026-08-24 00:00 went: day offsets 91 to DAYS - 1, and day 90's 23:00 one.
    const kept = await t.db
      .selectFrom('charges')
      .select(({ fn }) => [fn.countAll<string>().as('n'), fn.min('started_at').as('oldest')])
      .executeTakeFirstOrThrow();
    expect(chargesRetired + Number(kept.n)).toBe(DAYS * 3);
    expect(chargesRetired).toBe((DAYS - 91) * 3 + 1);
    expect(kept.oldest >= chargeRetentionCutoff(NOW, 90)!).toBe(true);
    expect(await snapshot()).toEqual(before);

    // A redelivery inside the window still charges nothing twice.
    const recent = charges.slice(0, 30);
    expect(await insertCharges(t.db, recent)).toEqual([]);
    expect(await snapshot()).toEqual(before);

    // A second pass has nothing left to do.
    expect((await maintainer.maintain(NOW)).chargesRetired).toBe(0);
    expect(await snapshot()).toEqual(before);
  }, 30_000);
});
