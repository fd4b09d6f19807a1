import { describe, expect, it } from '@jest/globals';
import { requestLogJob } from '../../../test/support/db.js';
import {
  logBatchJobId,
  MAX_LOGS_PER_JOB,
  REQUEST_LOG_BACKOFF,
  REQUEST_LOG_JOB_OPTIONS,
  requestLogBatchSchema,
  requestLogRetryDelayMs,
} from './request-log.job.js';

describe('requestLogBatchSchema', () => {
  it('accepts 1 to MAX_LOGS_PER_JOB logs and leaves them unparsed', () => {
    const logs = [requestLogJob(), { not: 'a log' }];
    expect(requestLogBatchSchema.parse({ v: 1, logs })).toEqual({ v: 1, logs });
    const full = Array.from({ length: MAX_LOGS_PER_JOB }, () => ({}));
    expect(requestLogBatchSchema.safeParse({ v: 1, logs: full }).success).toBe(true);
  });

  it.each([
    ['no logs', { v: 1, logs: [] }],
    ['too many logs', { v: 1, logs: Array.from({ length: MAX_LOGS_PER_JOB + 1 }, () => ({})) }],
    ['another version', { v: 2, logs: [{}] }],
    ['logs that are not a list', { v: 1, logs: {} }],
    ['a single log (the format before batching)', requestLogJob()],
  ])('rejects %s', (_case, data) => {
    expect(requestLogBatchSchema.safeParse(data).success).toBe(false);
  });
});

describe('logBatchJobId', () => {
  it('is the first request id and the batch size', () => {
    const logs = [requestLogJob({ requestId: 'req_aa' }), requestLogJob({ requestId: 'req_bb' })];
    expect(logBatchJobId(logs)).toBe('logs_req_aa_2');
    expect(logBatchJobId(logs.slice(0, 1))).toBe('logs_req_aa_1');
  });

  it('changes when the same first log heads a longer batch', () => {
    const logs = [1, 2, 3].map(() => requestLogJob());
    expect(logBatchJobId(logs)).not.toBe(logBatchJobId(logs.slice(0, 2)));
  });

  it('gives ids BullMQ accepts, even for a request id holding ":" or only digits', () => {
    for (const requestId of ['req_0123456789abcdef0123456789abcdef', 'a:b', '12345']) {
      const id = logBatchJobId([{ requestId }]);
      // BullMQ refuses custom ids that parse as integers or contain ':'.
      expect(id).not.toContain(':');
      expect(`${parseInt(id, 10)}`).not.toBe(id);
    }
  });

  it('refuses an empty batch', () => {
    expect(() => logBatchJobId([])).toThrow();
  });
});

describe('requestLogRetryDelayMs', () => {
  it('doubles from 1 s and never waits more than 10 s, so jobs drain soon after Postgres returns', () => {
    expect([1, 2, 3, 4, 5, 6, 30, 10_000].map(requestLogRetryDelayMs)).toEqual([
      1000, 2000, 4000, 8000, 10_000, 10_000, 10_000, 10_000,
    ]);
  });

  it('is the backoff every producer asks for, with attempts for more than a day of outage', () => {
    expect(REQUEST_LOG_JOB_OPTIONS.backoff).toEqual({ type: REQUEST_LOG_BACKOFF });
    expect(REQUEST_LOG_JOB_OPTIONS.attempts * 10).toBeGreaterThan(24 * 3600);
  });
});
