import { describe, expect, it } from '@jest/globals';
import { UnrecoverableError } from 'bullmq';
import { requestLogJob } from '../../../../test/support/db.js';
import { logsOfJob, parseRequestLogJob } from './request-log.payload.js';

describe('parseRequestLogJob', () => {
  it('accepts a valid job and fills defaults', () => {
    const job = requestLogJob({ keyId: '00000000-0000-0000-0000-000000000001' });
    const { cachedTokens: _omitted, ...usage } = job.usage!;
    expect(parseRequestLogJob({ ...job, usage })).toEqual(job);
  });

  it.each([
    ['not an object', 'nope'],
    ['a wrong version', { ...requestLogJob(), v: 2 }],
    ['a key id that is not a uuid', requestLogJob({ keyId: 'key-1' })],
    [
      'token counts past int4',
      requestLogJob({
        usage: {
          inputTokens: 2 ** 31,
          outputTokens: 0,
          cachedTokens: 0,
          cacheWrite5mTokens: 0,
          cacheWrite1hTokens: 0,
          reasoningTokens: 0,
        },
      }),
    ],
    ['a start time that is not ISO', { ...requestLogJob(), startedAt: 'yesterday' }],
  ])('rejects %s as unrecoverable', (_case, data) => {
    expect(() => parseRequestLogJob(data)).toThrow(UnrecoverableError);
  });
});

describe('logsOfJob', () => {
  it('gives the logs of a batch job, unvalidated', () => {
    const logs = [requestLogJob(), { not: 'a log' }];
    expect(logsOfJob('logs', { v: 1, logs })).toEqual(logs);
  });

  it('takes a job named `log` (edges from before batching) as a batch of one', () => {
    const log = requestLogJob();
    expect(logsOfJob('log', log)).toEqual([log]);
  });

  it.each([
    ['an empty batch', { v: 1, logs: [] }],
    ['a single log in a batch job', requestLogJob()],
    ['another version', { v: 2, logs: [requestLogJob()] }],
  ])('rejects %s as unrecoverable', (_case, data) => {
    expect(() => logsOfJob('logs', data)).toThrow(UnrecoverableError);
  });
});
