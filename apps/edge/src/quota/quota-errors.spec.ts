import { describe, expect, it } from '@jest/globals';
import { renderError } from '#libs/protocol';
import { type AdmissionSubject, type Budget } from '#libs/quota';
import { budgetDenialError, denialError } from './quota-errors.js';

const bodyOf = (err: Parameters<typeof renderError>[0], format: 'openai' | 'anthropic'): unknown =>
  JSON.parse(renderError(err, format).body);

const subject: AdmissionSubject = {
  userId: 'u',
  keyId: 'k',
  group: 'free',
  keySpendLimitNanos: null,
  keyLimits: { rpm: 30, tpm: null },
  groupLimits: { rpm: null, tpm: 20_000 },
};

describe('denial errors', () => {
  it('quota: 429 insufficient_quota, no retry-after, shape A type and code as SPEC says', () => {
    const err = denialError('balance', null, subject);
    expect(err).toMatchObject({ code: 'insufficient_quota', status: 429 });
    const rendered = renderError(err, 'openai');
    expect(rendered.headers['retry-after']).toBeUndefined();
    expect(rendered.headers['x-should-retry']).toBe('false'); // no SDK retry: waiting does not help
    expect(bodyOf(err, 'openai')).toEqual({
      error: {
        message: expect.stringMatching(/quota/),
        type: 'insufficient_quota',
        code: 'insufficient_quota',
        param: null,
      },
    });
    expect(err.message).toBe('You exceeded your current quota: your account has no credits left.');
    expect(denialError('key_spend_limit', null, subject).message).toMatch(
      /API key reached its spending limit/,
    );
  });

  it("a team out of credits is told its team's account has none left, not its own", () => {
    const team = { ...subject, accountId: 'team:00000000-0000-4000-8000-0000000000d1' };
    expect(denialError('balance', null, team).message).toBe(
      "You exceeded your current quota: your team's account has no credits left.",
    );
    // A user's own slot is its id: still "your account".
    expect(denialError('balance', null, { ...subject, accountId: 'u' }).message).toMatch(
      /: your account has/,
    );
  });

  it('a spent budget: retry-after in both shapes, the seconds until the reset its message names', () => {
    const budget: Budget = {
      id: 'b',
      keyId: 'k',
      period: 'day',
      window: 'calendar_utc',
      limitNanos: '5000000000',
      modelGroup: null,
      models: null,
    };
    const reset = Date.parse('2026-11-26T00:00:00Z');
    const err = budgetDenialError(budget, reset, reset - 299_400); // 23:55:00.600
    expect(err).toMatchObject({ code: 'insufficient_quota', status: 429 });
    expect(err.message).toMatch(/it resets at 2026-11-26T00:00:00Z\.$/);
    // Rounded up: a client waiting exactly this long is past the reset, never before it.
    expect(renderError(err, 'openai').headers['retry-after']).toBe('300');
    expect(renderError(err, 'anthropic').headers['retry-after']).toBe('300');
    // The client decides when to come back: the SDKs must not sleep until the reset on their own.
    expect(renderError(err, 'anthropic').headers['x-should-retry']).toBe('false');
    expect(renderError(err, 'openai').headers['x-should-retry']).toBe('false');
    expect(bodyOf(err, 'anthropic')).toEqual({
      type: 'error',
      error: { type: 'insufficient_quota', message: err.message },
    });
    // At (or past) the reset on a slow clock: at least 1, as for rate limits.
    expect(renderError(budgetDenialError(budget, reset, reset + 5), 'openai').headers['retry-after']).toBe(
      '1',
    );
    // A lifetime budget names no reset: no retry-after (waiting does not help).
    const lifetime = budgetDenialError({ ...budget, period: 'lifetime' }, null, reset);
    expect(lifetime.message).toMatch(/it does not reset\.$/);
    expect(renderError(lifetime, 'openai').headers['retry-after']).toBeUndefined();
  });

  it('rate limits: 429 rate_limit_exceeded naming the limit, with retry-after in both shapes', () => {
    const err = denialError('key_rpm', 12, subject);
    expect(err.message).toBe(
      'Rate limit reached for this API key: 30 requests per minute. Please try again in 12s.',
    );
    expect(renderError(err, 'openai').headers['retry-after']).toBe('12');
    expect(bodyOf(err, 'openai')).toMatchObject({
      error: { type: 'rate_limit_error', code: 'rate_limit_exceeded' },
    });
    expect(bodyOf(err, 'anthropic')).toEqual({
      type: 'error',
      error: { type: 'rate_limit_error', message: err.message },
    });
    expect(denialError('group_tpm', 3, subject).message).toMatch(/group free: 20000 tokens per minute/);
  });
});
