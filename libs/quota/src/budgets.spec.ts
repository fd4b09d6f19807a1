import { describe, expect, it } from '@jest/globals';
import { redisKeys } from '#libs/redis';
import { admissionVerdict, admitCall, type AdmissionSubject, NO_LIMITS, settleCall } from './admission.js';
import { type Budget, budgetCounters, budgetsFor, modelGroupsOf } from './budgets.js';

const keys = redisKeys('gw');
const U = '00000000-0000-4000-8000-00000000000a';
const K = '00000000-0000-4000-8000-00000000000b';
const NOW = Date.parse('2026-11-25T10:30:00Z');
const DAY = Date.parse('2026-11-25T00:00:00Z');
const groups = modelGroupsOf({ groups: { premium: ['pro'], default: ['mini', 'pro'] } });

const budget = (over: Partial<Budget>): Budget => ({
  id: 'b',
  keyId: null,
  period: 'day',
  window: 'calendar_utc',
  limitNanos: '5000000000',
  modelGroup: null,
  models: null,
  ...over,
});
const daily = budget({ id: 'd', keyId: K });
const rolling = budget({ id: 'r', window: 'rolling', limitNanos: '700' });
const subject: AdmissionSubject = {
  userId: U,
  keyId: K,
  group: 'default',
  keySpendLimitNanos: null,
  keyLimits: NO_LIMITS,
  groupLimits: NO_LIMITS,
  budgets: [daily, rolling],
};
const tagOf = (key: string): string => /\{([^}]+)\}/.exec(key)?.[1] ?? key;

describe('which budgets a request counts in', () => {
  const all = [
    daily,
    budget({ id: 'other-key', keyId: 'k2' }),
    budget({ id: 'user' }),
    budget({ id: 'premium', modelGroup: 'premium' }),
    budget({ id: 'listed', models: ['mini'] }),
    budget({ id: 'gone', modelGroup: 'no-such-group' }),
  ];
  const ids = (model: string) => budgetsFor(all, K, model, groups).map((b) => b.id);

  it("its key's and its owner's, never another key's", () => {
    expect(ids('mini')).toEqual(['d', 'user', 'listed']);
  });

  it("a model group's or a model list's only for their models; a group no longer configured for none", () => {
    expect(ids('pro')).toEqual(['d', 'user', 'premium']);
    expect(budgetsFor(undefined, K, 'pro', groups)).toEqual([]);
  });
});

describe('budgets in the admission and settle scripts', () => {
  it('admission reads every counter of each window, all in the user slot, and passes limits', () => {
    const call = admitCall(keys, subject, NOW);
    const counters = call.keys.slice(6);
    expect(counters).toHaveLength(1 + 24);
    expect(counters[0]).toBe(`gw:quota:{${U}}:budget:d:${DAY}`);
    expect(counters[24]).toBe(`gw:quota:{${U}}:budget:r:${Date.parse('2026-11-25T10:00:00Z')}`);
    expect(new Set(call.keys.map(tagOf))).toEqual(new Set([U]));
    expect(call.args.slice(7)).toEqual([2, '5000000000', 1, '700', 24]);
  });

  it("settle debits the bucket of the request's start and names it in the pending entry", () => {
    const started = Date.parse('2026-11-24T23:59:59Z'); // yesterday: charged to yesterday
    const call = settleCall(
      keys,
      subject,
      { requestId: 'q', costNanos: 9, tokens: 0, startedAtMs: started },
      NOW,
    );
    const yesterday = DAY - 86_400_000;
    const hour = Date.parse('2026-11-24T23:00:00Z');
    expect(call.keys.slice(5)).toEqual([
      `gw:quota:{${U}}:budget:d:${yesterday}`,
      `gw:quota:{${U}}:budget:r:${hour}`,
    ]);
    expect(call.args[8]).toBe(`;d@${yesterday},r@${hour}`);
    // TTLs: until the bucket stops counting (+ a day), from the settle's clock.
    expect(call.args.slice(9)).toEqual([
      1 + 86_400, // yesterday's counter stopped counting already: kept a day for slow clocks
      Math.ceil((hour + 86_400_000 - NOW) / 1000) + 86_400,
    ]);
  });

  it('a spent budget is named with when spend next leaves its window', () => {
    const calendar = admissionVerdict([8, 1, 1], NOW, subject.budgets);
    expect(calendar).toEqual({ ok: false, reason: 'budget', budget: daily, resetsAtMs: DAY + 86_400_000 });
    // Rolling: the 3rd bucket (13:00 yesterday) is the oldest with spend; it leaves at 13:00 today.
    const roll = admissionVerdict([8, 2, 3], NOW, subject.budgets);
    expect(roll).toMatchObject({
      reason: 'budget',
      budget: rolling,
      resetsAtMs: Date.parse('2026-11-25T13:00:00Z'),
    });
    expect(() => admissionVerdict([8, 3, 1], NOW, subject.budgets)).toThrow(/budget 3 of 2/);
  });

  it('a rebuild writes every counter of the current window with its durable value', () => {
    const hour = Date.parse('2026-11-25T09:00:00Z');
    const counters = budgetCounters(keys, U, rolling, new Map([[hour, 40n]]), NOW);
    expect(counters).toHaveLength(24);
    expect(counters.filter((c) => c.nanos > 0n)).toEqual([
      {
        key: `gw:quota:{${U}}:budget:r:${hour}`,
        token: `r@${hour}`,
        nanos: 40n,
        ttlSeconds: Math.ceil((hour + 86_400_000 - NOW) / 1000) + 86_400,
      },
    ]);
  });
});
