import { type ChargeInput } from '#libs/db';
import { type RequestLogJob } from '#libs/queue';

/**
 * The charges a batch settles: one per request that cost something and has an owner; a team key's
 * is its team's (`teamOfKey`: key id -> team, for the batch's team keys).
 */
export function chargesOf(
  jobs: readonly RequestLogJob[],
  teamOfKey: ReadonlyMap<string, string> = new Map(),
): ChargeInput[] {
  const charges: ChargeInput[] = [];
  for (const job of jobs) {
    if (job.userId === null || job.costNanos <= 0) continue;
    charges.push({
      requestId: job.requestId,
      userId: job.userId,
      keyId: job.keyId,
      amountNanos: job.costNanos,
      startedAt: job.startedAt,
      model: job.model,
      teamId: job.keyId === null ? null : (teamOfKey.get(job.keyId) ?? null),
    });
  }
  return charges;
}

/** Latest request start per key in the batch, for `api_keys.last_used_at`. */
export function lastUsedByKey(jobs: readonly RequestLogJob[]): Map<string, Date> {
  const latest = new Map<string, Date>();
  for (const job of jobs) {
    if (job.keyId === null) continue;
    const at = new Date(job.startedAt);
    const seen = latest.get(job.keyId);
    if (!seen || at > seen) latest.set(job.keyId, at);
  }
  return latest;
}

/**
 * Postgres errors caused by the data of one row (SQLSTATE class 22 data exception, class 23
 * integrity violation), as opposed to the database being unreachable or busy.
 */
export function isDataError(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && (code.startsWith('22') || code.startsWith('23'));
}
