import { describe, expect, it } from '@jest/globals';
import { z } from 'zod';
import { cursorSchema, encodeCursor, limitSchema, oneText, pageOf, timeAndId } from './page.js';

const query = z.strictObject({ cursor: cursorSchema(timeAndId).optional(), limit: limitSchema() });
const AT = '2026-01-02T03:04:05.123456Z';
const ID = '0b8e2f9a-1c2d-4e5f-8a9b-0c1d2e3f4a5b';

describe('list pages', () => {
  it('bounds the limit: 50 by default, 1 to 200', () => {
    expect(query.parse({}).limit).toBe(50);
    expect(query.parse({ limit: '200' }).limit).toBe(200);
    for (const limit of ['0', '201', '5000', '-1', '1.5', 'ten'])
      expect(query.safeParse({ limit }).success).toBe(false);
  });

  it('takes back only cursors of its own shape', () => {
    expect(query.parse({ cursor: encodeCursor([AT, ID]) }).cursor).toEqual({ at: AT, id: ID });
    for (const cursor of [
      encodeCursor(['alice@example.com']),
      encodeCursor(['2026-01-02T03:04:05Z', ID]),
      encodeCursor([AT, 'not-an-id']),
      'not base64url!',
      Buffer.from('{"a":1}').toString('base64url'),
    ])
      expect(query.safeParse({ cursor }).success).toBe(false);
    expect(cursorSchema(oneText).parse(encodeCursor(['a@example.com']))).toBe('a@example.com');
  });

  it('cuts limit + 1 rows to a page whose cursor is the last kept row; null on the last page', () => {
    const rows = [1, 2, 3, 4];
    const page = pageOf(
      rows,
      3,
      (n) => [n],
      (n) => n * 10,
    );
    expect(page.items).toEqual([10, 20, 30]);
    expect(page.nextCursor).toBe(encodeCursor([3]));
    expect(
      pageOf(
        rows.slice(0, 3),
        3,
        (n) => [n],
        (n) => n,
      ).nextCursor,
    ).toBeNull();
  });
});
