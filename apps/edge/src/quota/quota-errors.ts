import { GatewayError } from '#libs/protocol';
import { type AdmissionSubject, type Budget, type DenialReason } from '#libs/quota';
import { budgetMessage } from './budget-message.js';

const QUOTA_MESSAGES = {
  balance: 'You exceeded your current quota: your account has no credits left.',
  key_spend_limit: 'You exceeded your current quota: this API key reached its spending limit.',
} as const;

/**
 * The client's error for a refused admission: `insufficient_quota` (429, no retry-after: waiting
 * does not help) or `rate_limit_exceeded` (429 with retry-after to the next window). The render
 * step turns them into shape A or B.
 */
export function denialError(
  reason: DenialReason,
  retryAfterSeconds: number | null,
  subject: AdmissionSubject,
): GatewayError {
  if (reason === 'balance' || reason === 'key_spend_limit')
    return new GatewayError('insufficient_quota', QUOTA_MESSAGES[reason]);
  const [scope, metric] = reason.split('_') as ['key' | 'group', 'rpm' | 'tpm'];
  const limit = (scope === 'key' ? subject.keyLimits : subject.groupLimits)[metric];
  const what = metric === 'rpm' ? 'requests' : 'tokens';
  const who = scope === 'key' ? 'this API key' : `group ${subject.group}`;
  return new GatewayError(
    'rate_limit_exceeded',
    `Rate limit reached for ${who}: ${limit ?? '?'} ${what} per minute. Please try again in ${retryAfterSeconds ?? 1}s.`,
    { retryAfterSeconds: retryAfterSeconds ?? 1 },
  );
}

/** A spent budget: `insufficient_quota` naming the budget and when it resets (no retry-after). */
export function budgetDenialError(budget: Budget, resetsAtMs: number | null): GatewayError {
  return new GatewayError('insufficient_quota', budgetMessage(budget, resetsAtMs));
}
