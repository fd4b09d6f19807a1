import { type RedisClient, type RedisKeys } from '#libs/redis';
import {
  admissionVerdict,
  admitCall,
  admitRateCall,
  type AdmissionSubject,
  type AdmissionVerdict,
  settleCall,
  type SettleInput,
} from './admission.js';
import { keyAccountSlot } from './accounts.js';
import { ADMIT, ADMIT_RATE, runScript, SETTLE, SETTLE_THEN_ADMIT } from './scripts.js';

/** One round trip: balance, key spend limit, budgets, key and group rpm/tpm, in one script. */
export async function admitRequest(
  redis: RedisClient,
  keys: RedisKeys,
  subject: AdmissionSubject,
  nowMs = Date.now(),
): Promise<AdmissionVerdict> {
  const call = admitCall(keys, subject, nowMs);
  return admissionVerdict(await runScript(redis, ADMIT, call.keys, call.args), nowMs, subject.budgets);
}

/**
 * The request rate alone (key and group rpm), for what is free but limited like the vendors' own
 * token counting; one round trip. Counts the request in the same rpm windows as `admitRequest`.
 */
export async function admitRequestRate(
  redis: RedisClient,
  keys: RedisKeys,
  subject: AdmissionSubject,
  nowMs = Date.now(),
): Promise<AdmissionVerdict> {
  const call = admitRateCall(keys, subject, nowMs);
  return admissionVerdict(await runScript(redis, ADMIT_RATE, call.keys, call.args), nowMs);
}

/** Debits a finished request's cost, records it as pending and counts its tokens; one round trip. */
export async function settleRequest(
  redis: RedisClient,
  keys: RedisKeys,
  subject: AdmissionSubject,
  charge: SettleInput,
  nowMs = Date.now(),
): Promise<void> {
  const call = settleCall(keys, subject, charge, nowMs);
  await runScript(redis, SETTLE, call.keys, call.args);
}

/** One finished request of a user, waiting to settle (see settleThenAdmit). */
export interface PendingSettle {
  readonly subject: AdmissionSubject;
  readonly charge: SettleInput;
}

/**
 * Settles of one account (all of `settles` must share `admission`'s account: one Cluster slot), then
 * admits `admission` if given, in one round trip; its verdict, or null without one. The charges
 * are applied before the admission is checked, as if settled one by one beforehand.
 */
export function settleThenAdmit(
  redis: RedisClient,
  keys: RedisKeys,
  settles: readonly PendingSettle[],
  admission: AdmissionSubject,
  nowMs?: number,
): Promise<AdmissionVerdict>;
export function settleThenAdmit(
  redis: RedisClient,
  keys: RedisKeys,
  settles: readonly PendingSettle[],
  admission: null,
  nowMs?: number,
): Promise<null>;
export async function settleThenAdmit(
  redis: RedisClient,
  keys: RedisKeys,
  settles: readonly PendingSettle[],
  admission: AdmissionSubject | null,
  nowMs = Date.now(),
): Promise<AdmissionVerdict | null> {
  if (settles.length === 0) {
    return admission === null ? null : admitRequest(redis, keys, admission, nowMs);
  }
  const allKeys: string[] = [];
  const args: Array<string | number> = [settles.length];
  const add = (call: { keys: string[]; args: Array<string | number> }): void => {
    allKeys.push(...call.keys);
    args.push(call.keys.length, call.args.length, ...call.args);
  };
  for (const { subject, charge } of settles) add(settleCall(keys, subject, charge, nowMs));
  if (admission !== null) add(admitCall(keys, admission, nowMs));
  const reply = await runScript(redis, SETTLE_THEN_ADMIT, allKeys, args);
  return admission === null ? null : admissionVerdict(reply, nowMs, admission.budgets);
}

/**
 * Drops charges Postgres now holds from their accounts' pending sets (the worker, after a commit):
 * a team charge's is the team's. One HDEL per account; skipping it is harmless (reconciliation
 * drops settled entries too), it only keeps the pending sets small.
 */
export async function forgetSettled(
  redis: RedisClient,
  keys: RedisKeys,
  charges: ReadonlyArray<{
    readonly userId: string;
    readonly teamId?: string | null;
    readonly requestId: string;
  }>,
): Promise<void> {
  const byUser = new Map<string, string[]>();
  for (const c of charges) {
    const slot = keyAccountSlot(c);
    const ids = byUser.get(slot);
    if (ids) ids.push(c.requestId);
    else byUser.set(slot, [c.requestId]);
  }
  await Promise.all([...byUser].map(([userId, ids]) => redis.hdel(keys.quotaPending(userId), ...ids)));
}
