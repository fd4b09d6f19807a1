import { describe, expect, it } from '@jest/globals';
import { redisKeys } from '#libs/redis';
import { type AdmissionSubject, hasAnyRateLimit, NO_LIMITS } from './admission.js';
import { type Budget } from './budgets.js';
import { leaseCall, leaseVerdict } from './leases.js';

const keys = redisKeys('gw');
const U = '00000000-0000-4000-8000-00000000000a';
const K = '00000000-0000-4000-8000-00000000000b';
const daily: Budget = {
  id: 'b1',
  keyId: K,
  period: 'day',
  window: 'calendar_utc',
  limitNanos: '1000',
  modelGroup: null,
  models: null,
};
const subject: AdmissionSubject = {
  userId: U,
  accountId: 'team:t1',
  keyId: K,
  group: 'default',
  keySpendLimitNanos: '5000',
  keyLimits: NO_LIMITS,
  groupLimits: NO_LIMITS,
  budgets: [daily],
};
const NOW = Date.UTC(2026, 0, 1, 12);
const DAY = Date.UTC(2026, 0, 1);
const tagOf = (key: string): string => /\{([^}]+)\}/.exec(key)?.[1] ?? key;
const req = { leaseId: 'e:1', wantNanos: 250.4, expiresAtMs: NOW + 10_000, graceMs: 2000, share: 4 };

describe('lease script arguments', () => {
  it("puts every key in the account's slot: balance, key spends, leases, the budgets' windows", () => {
    const call = leaseCall(keys, subject, req, NOW);
    expect(new Set(call.keys.map(tagOf))).toEqual(new Set(['team:t1']));
    expect(call.keys).toEqual([
      'gw:quota:{team:t1}:balance',
      'gw:quota:{team:t1}:key-spent',
      keys.quotaLeases('team:t1'),
      keys.quotaBudgetSpent('team:t1', 'b1', DAY),
    ]);
    expect(call.args).toEqual([
      'e:1',
      NOW,
      250,
      4,
      NOW + 10_000,
      2000,
      K,
      '5000',
      'b1',
      1,
      '1000',
      1,
      72_000,
    ]);
  });

  it('asks for the share alone without a wanted amount, and no spend limit as empty', () => {
    const call = leaseCall(
      keys,
      { ...subject, keySpendLimitNanos: null, budgets: [] },
      {
        ...req,
        wantNanos: null,
      },
      NOW,
    );
    expect(call.args).toEqual(['e:1', NOW, '', 4, NOW + 10_000, 2000, K, '', '', 0, 72_000]);
  });
});

describe('lease verdicts', () => {
  it("reads a grant's amount and ADMIT's refusals", () => {
    expect(leaseVerdict([0, '1234'], NOW, subject)).toEqual({ ok: true, amountNanos: 1234 });
    expect(leaseVerdict(1, NOW, subject)).toEqual({ ok: false, reason: 'not_loaded' });
    expect(leaseVerdict(2, NOW, subject)).toMatchObject({ ok: false, reason: 'balance' });
    expect(leaseVerdict(3, NOW, subject)).toMatchObject({ ok: false, reason: 'key_spend_limit' });
    expect(leaseVerdict([8, 1, 1], NOW, subject)).toMatchObject({
      ok: false,
      reason: 'budget',
      budget: daily,
      resetsAtMs: DAY + 86_400_000,
    });
    expect(() => leaseVerdict(0, NOW, subject)).toThrow(/without an amount/);
  });
});

describe('which requests are leased', () => {
  it('not those with any rate limit, of the key or its group, rpm or tpm', () => {
    expect(hasAnyRateLimit(subject)).toBe(false);
    expect(hasAnyRateLimit({ ...subject, keyLimits: { rpm: null, tpm: 10 } })).toBe(true);
    expect(hasAnyRateLimit({ ...subject, groupLimits: { rpm: 5, tpm: null } })).toBe(true);
    expect(hasAnyRateLimit({ ...subject, keyLimits: { rpm: 0, tpm: 0 } })).toBe(false);
  });
});
