import { describe, expect, it } from '@jest/globals';
import { queueWorkerErrorLine } from './queue-worker-errors.js';

describe('queue worker errors', () => {
  it('a lost lock is a warning naming the job and saying it is redelivered, idempotent by request id', () => {
    // BullMQ's messages, from its scripts' codes (finished-errors.js) and its lock manager.
    for (const [message, jobId] of [
      ['Missing lock for job logs_req_1_50. moveToFinished', 'logs_req_1_50'],
      ['Lock mismatch for job logs_req_2_1. Cmd moveToFinished from active', 'logs_req_2_1'],
      ['could not renew lock for job logs_req_3_8', 'logs_req_3_8'],
    ] as const) {
      const line = queueWorkerErrorLine(new Error(message));
      expect(line).toEqual({ level: 'warn', jobId, message: expect.stringContaining(`(${message})`) });
      expect(line?.message).toMatch(
        new RegExp(`^job ${jobId}: its lock was gone .*delivered again.*once by request id.*charged twice`),
      );
    }
  });

  it('anything else is an error; connection errors are left to the outage log', () => {
    expect(queueWorkerErrorLine(new Error('Missing key for job logs_x. moveToFinished'))).toEqual({
      level: 'error',
      jobId: null,
      message: 'queue worker: Missing key for job logs_x. moveToFinished',
    });
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:6379'), { syscall: 'connect' });
    expect(queueWorkerErrorLine(refused)).toBeNull();
  });
});
