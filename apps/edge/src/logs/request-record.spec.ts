import { describe, expect, it } from '@jest/globals';
import { RequestRecord } from './request-record.js';
import { closeAttempt, newAttempt } from './upstream-attempt.js';

/** Attempts as the failover returns them: one for `a` that failed, one `limited` for `b`, one that answered. */
function attempts() {
  const failed = newAttempt('p1', 'a', 'a-up', [], 1, false);
  closeAttempt(failed, 3.5, 503, 'http_error');
  const answered = newAttempt('p2', 'b', 'b-up', ['dropped x'], 4, true);
  closeAttempt(answered, 10, 200, 'ok');
  const limited = newAttempt('p3', 'b', 'b-up3', [], 3.5, false);
  closeAttempt(limited, 4, 0, 'limited');
  return [failed, limited, answered];
}

describe('RequestRecord takes the failover attempts as values', () => {
  it("names the last attempt sent upstream as the request's provider, and logs every attempt in order", () => {
    const record = new RequestRecord('req', '/v1/chat/completions');
    record.targeted('a');
    record.attempted(attempts(), true);
    expect(record).toMatchObject({
      providerId: 'p2',
      upstreamModel: 'b-up',
      adjustments: ['dropped x'],
      sessionRouted: true,
    });
    const job = record.finish(200, null, 0)!;
    expect(job.attempts).toEqual([
      { providerId: 'p1', status: 503, outcome: 'http_error', latencyMs: 2.5 },
      { providerId: 'p3', status: 0, outcome: 'limited', latencyMs: 0.5 },
      { providerId: 'p2', status: 200, outcome: 'ok', latencyMs: 6 },
    ]);
  });

  it('after a fallback, each attempt names the model it was for, and the request the model it fell back from', () => {
    const record = new RequestRecord('req', '/v1/chat/completions');
    record.targeted('a');
    record.fellBack('b', null);
    record.attempted(attempts(), false);
    const job = record.finish(200, null, 0)!;
    expect(job).toMatchObject({ model: 'b', fallbackFrom: 'a' });
    expect(job.attempts.map((a) => a.model)).toEqual(['a', 'b', 'b']);
  });

  it('a stream broken after its headers: the answering attempt says so; a second finish logs nothing', () => {
    const record = new RequestRecord('req', '/v1/chat/completions');
    record.attempted(attempts(), false);
    record.failLastAttempt('stream_error');
    expect(record.finish(200, 'upstream_stream_error', 0)!.attempts.at(-1)!.outcome).toBe('stream_error');
    expect(record.finish(200, null, 0)).toBeNull();
  });
});
