import { describe, expect, it } from '@jest/globals';
import { parseWrkResult } from './wrk.js';

const FIELDS = {
  requests: 16000,
  duration_us: 8000000,
  bytes: 123456,
  connect_errors: 1,
  read_errors: 2,
  write_errors: 3,
  status_errors: 4,
  timeouts: 5,
  p50_us: 1234,
  p90_us: 2000,
  p99_us: 4567,
  max_us: 9000,
};

/** What wrk prints with chat.lua's done(): its own banner, then the BENCH_RESULT line. */
function stdout(fields: Record<string, number | string>): string {
  const line = Object.entries(fields)
    .map(([k, v]) => `${k}=${v}`)
    .join(' ');
  return [
    'Running 8s test @ http://127.0.0.1:1234/v1/chat/completions',
    '  1 threads and 32 connections',
    `BENCH_RESULT ${line}`,
    '',
  ].join('\n');
}

describe('parseWrkResult', () => {
  it('reads requests, duration, latency and errors from the BENCH_RESULT line', () => {
    expect(parseWrkResult(stdout(FIELDS))).toEqual({
      requests: 16000,
      seconds: 8,
      rps: 2000,
      p50Ms: 1.234,
      p99Ms: 4.567,
      errors: 15,
    });
  });

  it('counts every kind of error', () => {
    const clean = { ...FIELDS, connect_errors: 0, read_errors: 0, write_errors: 0, status_errors: 0 };
    expect(parseWrkResult(stdout({ ...clean, timeouts: 0 })).errors).toBe(0);
    expect(parseWrkResult(stdout({ ...clean, timeouts: 7 })).errors).toBe(7);
    expect(parseWrkResult(stdout({ ...clean, timeouts: 0, status_errors: 9 })).errors).toBe(9);
  });

  it('fails when wrk printed no result line', () => {
    expect(() => parseWrkResult('unable to connect to 127.0.0.1:1234 Connection refused\n')).toThrow(
      /no BENCH_RESULT line/,
    );
  });

  it('fails on a missing or non-numeric figure, naming it', () => {
    const { p99_us: _, ...noP99 } = FIELDS;
    expect(() => parseWrkResult(stdout(noP99))).toThrow(/wrk result has no p99_us/);
    expect(() => parseWrkResult(stdout({ ...FIELDS, requests: 'lots' }))).toThrow(
      /wrk result has no requests/,
    );
  });

  it('fails on a run of no duration instead of an infinite rate', () => {
    expect(() => parseWrkResult(stdout({ ...FIELDS, duration_us: 0 }))).toThrow(/wrk ran for no time/);
  });
});
