import { describe, expect, it } from '@jest/globals';
import { adminLogQuerySchema, decodeCursor, encodeCursor, logQuerySchema } from './log-query.schema.js';

describe('log query', () => {
  it('parses every filter', () => {
    const cursor = encodeCursor({ startedAt: '2026-01-02T03:04:05.123456Z', requestId: 'req_abc' });
    const q = adminLogQuerySchema.parse({
      from: '2026-01-01',
      to: '2026-01-02T00:00:00Z',
      model: 'mock-gpt',
      keyId: '6f1c1f0e-7a2b-4c1d-9e8f-0a1b2c3d4e5f',
      status: '429',
      cursor,
      limit: '20',
      userId: '6f1c1f0e-7a2b-4c1d-9e8f-0a1b2c3d4e5f',
    });
    expect(q.from?.toISOString()).toBe('2026-01-01T00:00:00.000Z');
    expect(q.status).toBe(429);
    expect(q.limit).toBe(20);
    expect(q.cursor).toEqual({ startedAt: '2026-01-02T03:04:05.123456Z', requestId: 'req_abc' });
  });

  it.each(['ok', 'error'])('takes status %p as a class', (status) => {
    expect(logQuerySchema.parse({ status }).status).toBe(status);
  });

  it.each([
    ['from', "2026-01-01' or 1=1 --"],
    ['to', 'yesterday'],
    ['status', '200; drop table users'],
    ['status', '99'],
    ['keyId', "' or ''='"],
    ['limit', '0'],
    ['limit', '201'],
    ['limit', '1e3'],
    ['limit', '-1'],
    ['cursor', 'not-a-cursor'],
    ['cursor', Buffer.from('["x","y"]').toString('base64url')],
    ['model', ''],
    ['model', 'm'.repeat(201)],
  ])('refuses %s=%p', (field, value) => {
    expect(logQuerySchema.safeParse({ [field]: value }).success).toBe(false);
  });

  it('refuses userId on the user endpoint and unknown parameters', () => {
    expect(logQuerySchema.safeParse({ userId: '6f1c1f0e-7a2b-4c1d-9e8f-0a1b2c3d4e5f' }).success).toBe(false);
    expect(logQuerySchema.safeParse({ sort: 'asc' }).success).toBe(false);
    expect(logQuerySchema.safeParse({ model: ['a', 'b'] }).success).toBe(false);
  });

  it('round-trips cursors and rejects tampered ones', () => {
    const c = { startedAt: '2026-01-02T03:04:05.000000Z', requestId: 'req_1' };
    expect(decodeCursor(encodeCursor(c))).toEqual(c);
    expect(decodeCursor(encodeCursor({ ...c, requestId: "x' or 1=1" }))).toBeNull();
    expect(decodeCursor('')).toBeNull();
  });
});
