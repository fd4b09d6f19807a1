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
    ['a start time that is not ISO', { ...requestLogJob(), startedAt: 'yesterday' }],
  ])('rejects %s as unrecoverable', (_case, data) => {
    expect(() => parseRequestLogJob(data)).toThrow(UnrecoverableError);
  });
});

describe('parseRequestLogJob repairs what a client could shape', () => {
  it.each([
    ['a NUL in an adjustment', ['dropped tools[0].\u0000'], ['dropped tools[0].\\u0000']],
    ['an adjustment of 301 characters', ['k'.repeat(301)], ['k'.repeat(299) + '…']],
    [
      '70 adjustments',
      Array.from({ length: 70 }, (_, i) => `x${i}`),
      [...Array.from({ length: 63 }, (_, i) => `x${i}`), 'and 7 more'],
    ],
  ])('stores %s, repaired and flagged, with its charge', (_case, adjustments, stored) => {
    const job = requestLogJob({ costNanos: 42 });
    const parsed = parseRequestLogJob({ ...job, adjustments });
    expect(parsed).toEqual({ ...job, adjustments: stored, repairs: [expect.stringMatching(/^adjustments/)] });
  });

  it('stores token counts past int4 as no usage, flagged, with the charge', () => {
    const job = requestLogJob({ costNanos: 42 });
    const usage = { ...job.usage!, inputTokens: 2 ** 31 };
    expect(parseRequestLogJob({ ...job, usage })).toEqual({
      ...job,
      usage: null,
      repairs: [expect.stringMatching(/^usage\.inputTokens: /)],
    });
  });

  it('repairs a NUL in a text column and drops an unreadable traceparent', () => {
    const parsed = parseRequestLogJob({
      ...requestLogJob(),
      errorCode: 'bad\u0000',
      traceparent: 'x'.repeat(65),
    });
    expect(parsed).toMatchObject({
      errorCode: 'bad\\u0000',
      repairs: [expect.any(String), expect.any(String)],
    });
    expect(parsed.traceparent).toBeUndefined();
  });

  it('repairs a requested model past its bound or holding a NUL, and a NUL in fallbackFrom', () => {
    const parsed = parseRequestLogJob({
      ...requestLogJob(),
      requestedModel: `${'m'.repeat(400)}`,
      fallbackFrom: 'big\u0000',
    });
    expect(parsed).toMatchObject({
      requestedModel: 'm'.repeat(299) + '…',
      fallbackFrom: 'big\\u0000',
      repairs: [expect.stringMatching(/^requestedModel: /), expect.stringMatching(/^fallbackFrom: /)],
    });
  });

  it('takes a log of an older edge, without the model names, as naming none', () => {
    const { requestedModel: _r, fallbackFrom: _f, ...older } = requestLogJob();
    expect(parseRequestLogJob(older)).toMatchObject({ requestedModel: null, fallbackFrom: null });
  });

  it.each([
    ['request id', { requestId: '' }],
    ['cost', { costNanos: -1 }],
    ['user', { userId: 'nobody' }],
  ])('still refuses a log whose %s is unreadable, repairable fields or not', (_case, bad) => {
    expect(() => parseRequestLogJob({ ...requestLogJob(), ...bad, adjustments: ['\u0000'] })).toThrow(
      UnrecoverableError,
    );
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
