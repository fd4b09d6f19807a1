import { describe, expect, it } from '@jest/globals';
import { type Budget } from '#libs/quota';
import { budgetMessage, creditsText } from './budget-message.js';

const b = (over: Partial<Budget>): Budget => ({
  id: 'b',
  keyId: 'k',
  period: 'day',
  window: 'calendar_utc',
  limitNanos: '5000000000',
  modelGroup: null,
  models: null,
  ...over,
});

describe('budget messages', () => {
  it("names the key's daily budget, its amount and the next midnight UTC", () => {
    expect(budgetMessage(b({}), Date.parse('2026-11-26T00:00:00Z'))).toBe(
      "Quota exceeded: this key's daily budget of 5.00 credits is spent; it resets at 2026-11-26T00:00:00Z.",
    );
  });

  it("names a team's budget as the team's", () => {
    const team = b({
      keyId: null,
      teamId: '00000000-0000-4000-8000-0000000000d1',
      period: 'day',
      limitNanos: '2000000000',
    });
    expect(budgetMessage(team, Date.parse('2026-11-27T00:00:00Z'))).toBe(
      "Quota exceeded: your team's daily budget of 2.00 credits is spent; it resets at 2026-11-27T00:00:00Z.",
    );
  });

  it("names the account's budgets, their models, rolling and lifetime windows", () => {
    const week = b({ keyId: null, period: 'week', modelGroup: 'premium', limitNanos: '12500000000' });
    expect(budgetMessage(week, Date.parse('2026-11-30T00:00:00Z'))).toBe(
      "Quota exceeded: your account's weekly budget of 12.50 credits for the models of group premium is spent; it resets at 2026-11-30T00:00:00Z.",
    );
    const roll = b({ window: 'rolling', models: ['a', 'b'], limitNanos: '1000' });
    expect(budgetMessage(roll, Date.parse('2026-11-26T10:00:00Z'))).toBe(
      "Quota exceeded: this key's rolling 24-hour budget of 0.000001 credits for a, b is spent; its oldest spend leaves the window at 2026-11-26T10:00:00Z.",
    );
    expect(budgetMessage(b({ period: 'lifetime' }), null)).toMatch(
      /this key's lifetime budget of 5\.00 credits is spent; it does not reset\.$/,
    );
  });

  it('writes credits exactly', () => {
    expect(['1', '1000000000', '1234567890', '100000000000'].map(creditsText)).toEqual([
      '0.000000001',
      '1.00',
      '1.23456789',
      '100.00',
    ]);
  });
});
