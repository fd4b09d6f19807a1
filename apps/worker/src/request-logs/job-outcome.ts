import { UnrecoverableError } from 'bullmq';
import { isDataError } from './settlement.js';

/** A log of a job that did not land, by its index in the job. */
export interface LogFailure {
  readonly index: number;
  readonly error: Error;
}

const REASONS_SHOWN = 3;

function describe(failures: readonly LogFailure[]): string {
  const reasons = failures
    .slice(0, REASONS_SHOWN)
    .map((f) => `#${f.index}: ${f.error.message}`)
    .join('; ');
  const more = failures.length > REASONS_SHOWN ? `; ${failures.length - REASONS_SHOWN} more` : '';
  return `[${failures.map((f) => f.index).join(', ')}] (${reasons}${more})`;
}

/**
 * How a job of `total` logs ends, given the logs that failed validation (`invalid`) and those
 * whose write failed (`failed`); null when every log landed.
 *
 * A write that failed for a reason other than the row's data (Postgres down, a deadlock) fails the
 * job so BullMQ retries it whole: the logs already written are skipped by request id. That comes
 * first, so a bad log never takes good ones down with it. What is left are logs that can never land
 * (invalid, or rejected by Postgres for their data): the job fails for good, kept with its data in
 * the failed set, naming their indices; every other log of it is already committed.
 */
export function jobOutcome(
  total: number,
  invalid: readonly LogFailure[],
  failed: readonly LogFailure[],
): Error | null {
  const retryable = failed.filter((f) => !isDataError(f.error));
  if (retryable.length > 0)
    return new Error(`${retryable.length} of ${total} logs not written, will retry: ${describe(retryable)}`);
  const lost = [...invalid, ...failed].sort((a, b) => a.index - b.index);
  if (lost.length > 0)
    return new UnrecoverableError(`${lost.length} of ${total} logs can never be written: ${describe(lost)}`);
  return null;
}
