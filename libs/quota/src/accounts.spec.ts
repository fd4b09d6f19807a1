import { describe, expect, it } from '@jest/globals';
import { redisKeys } from '#libs/redis';
import { accountOfSlot, accountSlot, keyAccountSlot } from './accounts.js';
import { admitCall, admitRateCall, type AdmissionSubject, settleCall } from './admission.js';
import { budgetAdmitArgs, type Budget } from './budgets.js';

const keys = redisKeys('gw');
const U = '00000000-0000-4000-8000-00000000000a';
const K = '00000000-0000-4000-8000-00000000000b';
const TEAM = '00000000-0000-4000-8000-0000000000d1';
const NOW = Date.UTC(2026, 0, 1, 0, 0, 45, 250);
const MINUTE = Math.floor(NOW / 60_000);
const tagOf = (key: string): string => /\{([^}]+)\}/.exec(key)?.[1] ?? key;

const teamBudget: Budget = {
  id: 'b1',
  keyId: null,
  period: 'day',
  window: 'calendar_utc',
  limitNanos: '500',
  modelGroup: null,
  models: null,
};
const subject: AdmissionSubject = {
  userId: U,
  accountId: keyAccountSlot({ userId: U, teamId: TEAM }),
  keyId: K,
  group: 'free',
  keySpendLimitNanos: null,
  keyLimits: { rpm: 10, tpm: null },
  groupLimits: { rpm: 5, tpm: 1000 },
  budgets: [teamBudget],
};

describe('quota accounts', () => {
  it("names a user's account by its id (as before teams) and a team's apart", () => {
    expect(keyAccountSlot({ userId: U })).toBe(U);
    expect(keyAccountSlot({ userId: U, teamId: null })).toBe(U);
    expect(keyAccountSlot({ userId: U, teamId: TEAM })).toBe(`team:${TEAM}`);
    expect(accountOfSlot(`team:${TEAM}`)).toEqual({ kind: 'team', id: TEAM });
    expect(accountOfSlot(U)).toEqual({ kind: 'user', id: U });
    expect(accountSlot(accountOfSlot(`team:${TEAM}`))).toBe(`team:${TEAM}`);
  });

  it("puts every key of a team key's admission and settle in the team's slot, none in the member's", () => {
    const admit = admitCall(keys, subject, NOW);
    const settle = settleCall(keys, subject, { requestId: 'r', costNanos: 1, tokens: 1 }, NOW);
    const rate = admitRateCall(keys, subject, NOW);
    for (const call of [admit, settle, rate]) {
      expect(new Set(call.keys.map(tagOf))).toEqual(new Set([`team:${TEAM}`]));
    }
    expect(admit.keys[0]).toBe(`gw:quota:{team:${TEAM}}:balance`);
    expect(admit.keys.slice(6)).toEqual(budgetAdmitArgs(keys, `team:${TEAM}`, [teamBudget], NOW).keys);
  });

  it("keeps a group's limits per member inside a team (a team is not one user of the group)", () => {
    const admit = admitCall(keys, subject, NOW);
    expect(admit.keys[4]).toBe(`gw:rate:{team:${TEAM}}:group:free@${U}:rpm:${MINUTE}`);
    expect(admit.keys[5]).toBe(`gw:rate:{team:${TEAM}}:group:free@${U}:tpm:${MINUTE}`);
    // A user's own key: the windows it always had.
    const own = admitCall(keys, { ...subject, accountId: undefined }, NOW);
    expect(own.keys[4]).toBe(`gw:rate:{${U}}:group:free:rpm:${MINUTE}`);
  });
});
