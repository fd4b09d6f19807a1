import { isConnectionError } from '#libs/redis';

/**
 * BullMQ's errors for a job whose lock this worker no longer holds: from its scripts' codes
 * (`finishedErrors`: missing lock, lock mismatch) and from its lock manager (a renewal refused).
 */
const LOST_LOCK = [
  /^Missing lock for job (\S+)\. /,
  /^Lock mismatch for job (\S+)\. /,
  /^could not renew lock for job (\S+)$/,
];

export interface QueueWorkerLine {
  readonly level: 'warn' | 'error';
  /** The job a lost lock names; null for other errors. */
  readonly jobId: string | null;
  readonly message: string;
}

/**
 * How an error the BullMQ worker emits is logged; null for connection errors, which #libs/redis
 * logs once per outage.
 *
 * A lost lock is expected, not a fault: a job's lock lapses when its worker is killed mid-job (kill
 * -9, OOM) or stalls past the lock, and BullMQ's stalled check then gives the job to a worker again.
 * The worker that finds the lock gone (finishing the job, or renewing its lock) cannot acknowledge
 * it, and the job is delivered again; its logs and charges are written once by request id, so it
 * is neither lost nor charged twice. It is a warning with that said, not an error with BullMQ's
 * bare `Missing lock for job ...`.
 */
export function queueWorkerErrorLine(err: Error): QueueWorkerLine | null {
  if (isConnectionError(err)) return null;
  for (const pattern of LOST_LOCK) {
    const jobId = pattern.exec(err.message)?.[1];
    if (jobId === undefined) continue;
    return {
      level: 'warn',
      jobId,
      message:
        `job ${jobId}: its lock was gone (it lapses when a worker is killed mid-job or stalls), so ` +
        `BullMQ's stalled check has it delivered again; its logs and charges are written once by ` +
        `request id, so nothing is lost or charged twice (${err.message})`,
    };
  }
  return { level: 'error', jobId: null, message: `queue worker: ${err.message}` };
}
