import { describe, expect, it } from '@jest/globals';
import { requestLogJob } from '../../../../test/support/db.js';
import { chargesOf, isDataError, lastUsedByKey } from './settlement.js';

const U = '00000000-0000-4000-8000-00000000000a';
const K = '00000000-0000-4000-8000-00000000000b';
const T = '2026-11-25T23:59:59.000Z';

describe('settlement', () => {
  it('charges only requests with an owner and a cost', () => {
    const jobs = [
      requestLogJob({ requestId: 'a', userId: U, keyId: K, costNanos: 5, model: 'm', startedAt: T }),
      requestLogJob({ requestId: 'b', userId: U, keyId: K, costNanos: 0 }),
      requestLogJob({ requestId: 'c', userId: null, keyId: null, costNanos: 9 }),
    ];
    // The request's start and model travel with the charge: they place it in budget windows.
    expect(chargesOf(jobs)).toEqual([
      { requestId: 'a', userId: U, keyId: K, amountNanos: 5, startedAt: T, model: 'm', teamId: null },
    ]);
  });

  it("charges a team key's requests to its team, the others to their user", () => {
    const K2 = '00000000-0000-4000-8000-00000000000c';
    const TEAM = '00000000-0000-4000-8000-0000000000d1';
    const jobs = [
      requestLogJob({ requestId: 'a', userId: U, keyId: K, costNanos: 5 }),
      requestLogJob({ requestId: 'b', userId: U, keyId: K2, costNanos: 7 }),
    ];
    expect(chargesOf(jobs, new Map([[K2, TEAM]])).map((c) => [c.requestId, c.userId, c.teamId])).toEqual([
      ['a', U, null],
      ['b', U, TEAM],
    ]);
  });

  it('keeps the latest start per key', () => {
    const jobs = [
      requestLogJob({ keyId: K, startedAt: '2026-01-01T00:00:02.000Z' }),
      requestLogJob({ keyId: K, startedAt: '2026-01-01T00:00:01.000Z' }),
      requestLogJob({ keyId: null }),
    ];
    expect(lastUsedByKey(jobs)).toEqual(new Map([[K, new Date('2026-01-01T00:00:02.000Z')]]));
  });

  it('tells row errors from an unreachable database', () => {
    expect(isDataError({ code: '23503' })).toBe(true);
    expect(isDataError({ code: '22P02' })).toBe(true);
    expect(isDataError({ code: '57P01' })).toBe(false);
    expect(isDataError(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }))).toBe(
      false,
    );
    expect(isDataError(null)).toBe(false);
  });
});
