import { describe, expect, it } from '@jest/globals';
import { UnrecoverableError } from 'bullmq';
import { jobOutcome } from './job-outcome.js';

/** An error as pg reports it, with its SQLSTATE. */
function pgError(code: string, message = `pg ${code}`): Error {
  return Object.assign(new Error(message), { code });
}

describe('jobOutcome', () => {
  it('is null when every log landed', () => {
    expect(jobOutcome(3, [], [])).toBeNull();
  });

  it('fails for good naming the invalid and data-rejected logs', () => {
    const out = jobOutcome(
      10,
      [{ index: 7, error: new Error('invalid request log job: bad status') }],
      [{ index: 2, error: pgError('23503', 'violates foreign key') }],
    );
    expect(out).toBeInstanceOf(UnrecoverableError);
    expect(out?.message).toBe(
      '2 of 10 logs can never be written: [2, 7] (#2: violates foreign key; #7: invalid request log job: bad status)',
    );
  });

  it('retries when a write failed for another reason than its data, even beside invalid logs', () => {
    const out = jobOutcome(
      5,
      [{ index: 0, error: new Error('invalid') }],
      [
        { index: 1, error: pgError('23503') },
        { index: 3, error: pgError('57P01', 'terminating connection') },
        { index: 4, error: new Error('connect ECONNREFUSED') },
      ],
    );
    expect(out).not.toBeInstanceOf(UnrecoverableError);
    expect(out?.message).toBe(
      '2 of 5 logs not written, will retry: [3, 4] (#3: terminating connection; #4: connect ECONNREFUSED)',
    );
  });

  it('names every index but only the first reasons', () => {
    const invalid = Array.from({ length: 5 }, (_, index) => ({ index, error: new Error('bad') }));
    expect(jobOutcome(5, invalid, [])?.message).toBe(
      '5 of 5 logs can never be written: [0, 1, 2, 3, 4] (#0: bad; #1: bad; #2: bad; 2 more)',
    );
  });
});
