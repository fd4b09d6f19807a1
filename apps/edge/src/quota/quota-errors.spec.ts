import { describe, expect, it } from '@jest/globals';
import { renderError } from '#libs/protocol';
import { type AdmissionSubject } from '#libs/quota';
import { denialError } from './quota-errors.js';

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
    expect(bodyOf(err, 'openai')).toEqual({
      error: {
        message: expect.stringMatching(/quota/),
        type: 'insufficient_quota',
        code: 'insufficient_quota',
        param: null,
      },
    });
    expect(denialError('key_spend_limit', null, subject).message).toMatch(
      /API key reached its spending limit/,
    );
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
