import { GatewayError } from '#libs/protocol';
import {
  accountOfSlot,
  type AdmissionSubject,
  type Budget,
  type DenialReason,
  subjectSlot,
} from '#libs/quota';
import { budgetMessage } from './budget-message.js';

/** Whose credits ran out: a team key spends its team's account, not its member's (docs/teams.md). */
const balanceMessage = (subject: AdmissionSubject): string =>
  `You exceeded your current quota: ${
    accountOfSlot(subjectSlot(subject)).kind === 'team' ? "your team's account" : 'your account'
  } has no credits left.`;

const SPEND_LIMIT_MESSAGE = 'You exceeded your current quota: this API key reached its spending limit.';

/**
 * The client's error for a refused admission: `insufficient_quota` (429, no retry-after: a balance
 * or a key's spend limit has no reset, only a grant or a new limit helps) or `rate_limit_exceeded`
 * (429 with retry-after to the next window). The render step turns them into shape A or B.
 */
export function denialError(
  reason: DenialReason,
  retryAfterSeconds: number | null,
  subject: AdmissionSubject,
): GatewayError {
  if (reason === 'balance') return new GatewayError('insufficient_quota', balanceMessage(subject));
  if (reason === 'key_spend_limit') return new GatewayError('insufficient_quota', SPEND_LIMIT_MESSAGE);
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

/**
 * A spent budget: `insufficient_quota` naming the budget and when it resets, with `retry-after` in
 * whole seconds from `nowMs` (the gate's clock) to that reset, rounded up and at least 1: a client
 * waiting that long is past the time the message names. A budget that names no reset (lifetime)
 * gets none.
 */
export function budgetDenialError(budget: Budget, resetsAtMs: number | null, nowMs: number): GatewayError {
  const message = budgetMessage(budget, resetsAtMs);
  if (resetsAtMs === null) return new GatewayError('insufficient_quota', message);
  const retryAfterSeconds = Math.max(1, Math.ceil((resetsAtMs - nowMs) / 1000));
  return new GatewayError('insufficient_quota', message, { retryAfterSeconds });
}
