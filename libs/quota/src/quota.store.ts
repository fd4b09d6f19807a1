import { type RedisClient, type RedisKeys } from '#libs/redis';
import {
  admissionVerdict,
  admitCall,
  type AdmissionSubject,
  type AdmissionVerdict,
  settleCall,
  type SettleInput,
} from './admission.js';
import { ADMIT, runScript, SETTLE } from './scripts.js';

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

/**
 * Drops charges Postgres now holds from their users' pending sets (the worker, after a commit).
 * One HDEL per user; skipping it is harmless (reconciliation drops settled entries too), it only
 * keeps the pending sets small.
 */
export async function forgetSettled(
  redis: RedisClient,
  keys: RedisKeys,
  charges: ReadonlyArray<{ readonly userId: string; readonly requestId: string }>,
): Promise<void> {
  const byUser = new Map<string, string[]>();
  for (const c of charges) {
    const ids = byUser.get(c.userId);
    if (ids) ids.push(c.requestId);
    else byUser.set(c.userId, [c.requestId]);
  }
  await Promise.all([...byUser].map(([userId, ids]) => redis.hdel(keys.quotaPending(userId), ...ids)));
}
