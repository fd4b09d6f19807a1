import { describe, expect, it } from '@jest/globals';
import { isDatabaseUnreachable } from './connection.js';

const withCode = (message: string, code: string): Error => Object.assign(new Error(message), { code });

describe('isDatabaseUnreachable', () => {
  it("tells node-postgres's words for a lost, never made or timed-out connection", () => {
    for (const message of [
      'Connection terminated unexpectedly',
      'Connection terminated due to connection timeout',
      'timeout exceeded when trying to connect',
      'Client has encountered a connection error and is not queryable',
      'Client was closed and is not queryable',
    ])
      expect(isDatabaseUnreachable(new Error(message))).toBe(true);
  });

  it('tells the SQLSTATEs of a server that serves nobody right now', () => {
    for (const code of ['08006', '08001', '57P01', '57P02', '57P03', '53300'])
      expect(isDatabaseUnreachable(withCode('x', code))).toBe(true);
  });

  it("is false for a query's own failure", () => {
    expect(isDatabaseUnreachable(withCode('duplicate key value', '23505'))).toBe(false);
    expect(isDatabaseUnreachable(withCode('canceling statement due to statement timeout', '57014'))).toBe(
      false,
    );
    expect(isDatabaseUnreachable(new TypeError("Cannot read properties of undefined (reading 'id')"))).toBe(
      false,
    );
  });
});
