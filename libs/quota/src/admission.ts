import { type RedisKeys } from '#libs/redis';
import { budgetWindow, nextRelease } from './budget-window.js';
import { budgetAdmitArgs, type Budget, budgetSettleArgs } from './budgets.js';

/** Optional per-minute limits; null = no limit of that kind. */
export interface RateLimits {
  readonly rpm: number | null;
  readonly tpm: number | null;
}

export const NO_LIMITS: RateLimits = Object.freeze({ rpm: null, tpm: null });

/** Who is asking, with every limit that applies: what the admission script needs. */
export interface AdmissionSubject {
  readonly userId: string;
  /**
   * The paying account's slot (`keyAccountSlot`: `team:<id>` for a team key); absent = the user's
   * own. Every key of the scripts is in this slot.
   */
  readonly accountId?: string;
  readonly keyId: string;
  readonly group: string;
  /** The key's lifetime spend cap in nanocredits (int8 as decimal string), or null. */
  readonly keySpendLimitNanos: string | null;
  readonly keyLimits: RateLimits;
  readonly groupLimits: RateLimits;
  /** The budgets this request counts in (its key's and its owner's that cover its model); none if absent. */
  readonly budgets?: readonly Budget[];
}

export type DenialReason = 'balance' | 'key_spend_limit' | 'key_rpm' | 'key_tpm' | 'group_rpm' | 'group_tpm';

export type AdmissionVerdict =
  | { readonly ok: true }
  /** No balance in Redis for this user (cold start or a flushed Redis): seed it, then ask again. */
  | { readonly ok: false; readonly reason: 'not_loaded' }
  | { readonly ok: false; readonly reason: DenialReason; readonly retryAfterSeconds: number | null }
  /** A budget's window is spent; `resetsAtMs`: when spend next leaves it (null: never, lifetime). */
  | {
      readonly ok: false;
      readonly reason: 'budget';
      readonly budget: Budget;
      readonly resetsAtMs: number | null;
    };

/** Counters are fixed one-minute windows; a counter outlives its window a little for slow clocks. */
export const WINDOW_MS = 60_000;
export const COUNTER_TTL_SECONDS = 120;

export const minuteOf = (nowMs: number): number => Math.floor(nowMs / WINDOW_MS);

/** Whole seconds until the next window opens (at least 1): the `retry-after` of a rate limit. */
export function secondsToNextWindow(nowMs: number): number {
  return Math.max(1, Math.ceil(((minuteOf(nowMs) + 1) * WINDOW_MS - nowMs) / 1000));
}

const limitArg = (n: number | null): number => (n !== null && n > 0 ? n : 0);

/** The Redis slot of the subject's account. */
export const subjectSlot = (s: AdmissionSubject): string => s.accountId ?? s.userId;

/**
 * A group's limits hold per user of the group: in a team's slot the window is the member's own
 * (a team is not one user of the group, and sharing one user's limit would starve its members).
 */
function groupRateKey(keys: RedisKeys, s: AdmissionSubject, metric: 'rpm' | 'tpm', minute: number): string {
  const slot = subjectSlot(s);
  return keys.groupRate(slot, slot === s.userId ? s.group : `${s.group}@${s.userId}`, metric, minute);
}

/** KEYS and ARGV of the ADMIT script (see scripts.ts), all keys in the account's slot. */
export function admitCall(
  keys: RedisKeys,
  s: AdmissionSubject,
  nowMs: number,
): { keys: string[]; args: Array<string | number> } {
  const minute = minuteOf(nowMs);
  const slot = subjectSlot(s);
  const budgets = budgetAdmitArgs(keys, slot, s.budgets ?? [], nowMs);
  return {
    keys: [
      keys.quotaBalance(slot),
      keys.quotaKeySpent(slot),
      keys.keyRate(slot, s.keyId, 'rpm', minute),
      keys.keyRate(slot, s.keyId, 'tpm', minute),
      groupRateKey(keys, s, 'rpm', minute),
      groupRateKey(keys, s, 'tpm', minute),
      ...budgets.keys,
    ],
    args: [
      s.keyId,
      s.keySpendLimitNanos ?? '',
      limitArg(s.keyLimits.rpm),
      limitArg(s.keyLimits.tpm),
      limitArg(s.groupLimits.rpm),
      limitArg(s.groupLimits.tpm),
      COUNTER_TTL_SECONDS,
      ...budgets.args,
    ],
  };
}

/** KEYS and ARGV of the ADMIT_RATE script: the subject's rpm windows alone. */
export function admitRateCall(
  keys: RedisKeys,
  s: AdmissionSubject,
  nowMs: number,
): { keys: string[]; args: Array<string | number> } {
  const minute = minuteOf(nowMs);
  return {
    keys: [keys.keyRate(subjectSlot(s), s.keyId, 'rpm', minute), groupRateKey(keys, s, 'rpm', minute)],
    args: [limitArg(s.keyLimits.rpm), limitArg(s.groupLimits.rpm), COUNTER_TTL_SECONDS],
  };
}

/** Whether the subject has a request rate limit (of its key or its group) at all. */
export const hasRateLimit = (s: AdmissionSubject): boolean =>
  limitArg(s.keyLimits.rpm) > 0 || limitArg(s.groupLimits.rpm) > 0;

/** Whether any rate limit (rpm or tpm, of the key or its group) applies: such requests are not leased. */
export const hasAnyRateLimit = (s: AdmissionSubject): boolean =>
  hasRateLimit(s) || limitArg(s.keyLimits.tpm) > 0 || limitArg(s.groupLimits.tpm) > 0;

const REASONS: Readonly<Record<number, DenialReason>> = {
  2: 'balance',
  3: 'key_spend_limit',
  4: 'key_rpm',
  5: 'key_tpm',
  6: 'group_rpm',
  7: 'group_tpm',
};

/**
 * The ADMIT script's reply as a verdict; rate limits say when the next window opens, budgets when
 * spend next leaves theirs. A spent budget replies {8, budget index, oldest bucket holding spend}.
 */
export function admissionVerdict(
  code: unknown,
  nowMs: number,
  budgets: readonly Budget[] = [],
): AdmissionVerdict {
  if (Array.isArray(code) && code[0] === 8) {
    const budget = budgets[Number(code[1]) - 1];
    if (!budget) throw new Error(`admission script named budget ${String(code[1])} of ${budgets.length}`);
    const first = Number(code[2]) > 0 ? Number(code[2]) - 1 : null;
    return {
      ok: false,
      reason: 'budget',
      budget,
      resetsAtMs: nextRelease(budget, budgetWindow(budget, nowMs), first),
    };
  }
  if (code === 0) return { ok: true };
  if (code === 1) return { ok: false, reason: 'not_loaded' };
  const reason = typeof code === 'number' ? REASONS[code] : undefined;
  if (reason === undefined) throw new Error(`admission script returned ${String(code)}`);
  const rate = reason !== 'balance' && reason !== 'key_spend_limit';
  return { ok: false, reason, retryAfterSeconds: rate ? secondsToNextWindow(nowMs) : null };
}

/** What one finished request settles. */
export interface SettleInput {
  readonly requestId: string;
  readonly costNanos: number;
  /** Input + output tokens, counted against the tpm windows. */
  readonly tokens: number;
  /** The request's start (its log's started_at): the budget buckets it is charged to; default now. */
  readonly startedAtMs?: number;
}

/** KEYS and ARGV of the SETTLE script. */
export function settleCall(
  keys: RedisKeys,
  s: AdmissionSubject,
  charge: SettleInput,
  nowMs: number,
): { keys: string[]; args: Array<string | number> } {
  const minute = minuteOf(nowMs);
  const slot = subjectSlot(s);
  const budgets = budgetSettleArgs(keys, slot, s.budgets ?? [], charge.startedAtMs ?? nowMs, nowMs);
  return {
    keys: [
      keys.quotaBalance(slot),
      keys.quotaKeySpent(slot),
      keys.quotaPending(slot),
      keys.keyRate(slot, s.keyId, 'tpm', minute),
      groupRateKey(keys, s, 'tpm', minute),
      ...budgets.keys,
    ],
    args: [
      charge.requestId,
      Math.max(0, Math.round(charge.costNanos)),
      s.keyId,
      nowMs,
      Math.max(0, Math.round(charge.tokens)),
      limitArg(s.keyLimits.tpm) > 0 ? 1 : 0,
      limitArg(s.groupLimits.tpm) > 0 ? 1 : 0,
      COUNTER_TTL_SECONDS,
      budgets.tokens,
      ...budgets.ttls,
    ],
  };
}
