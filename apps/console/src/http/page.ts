import { z } from 'zod';
import { text } from './validate.js';

/** A page's size when the caller names none, and the most it may ask for (docs/console-api.md). */
export const DEFAULT_PAGE_LIMIT = 50;
export const MAX_PAGE_LIMIT = 200;

/** One value of a sort key: what a cursor carries (an email, a time as ISO text, an id, a number). */
type KeyPart = string | number;

/**
 * The opaque cursor: base64url of the JSON array of the last row's sort key and id. Opaque to
 * clients (they only hand it back); decoded here against the shape its list expects.
 */
export function encodeCursor(parts: readonly KeyPart[]): string {
  return Buffer.from(JSON.stringify(parts)).toString('base64url');
}

/** The parts of a cursor whose shape `check` accepts, or null for anything this API never returned. */
export function decodeCursor<T>(cursor: string, check: (parts: unknown[]) => T | null): T | null {
  if (!/^[\w-]{1,800}$/.test(cursor)) return null;
  try {
    const value: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    return Array.isArray(value) ? check(value) : null;
  } catch {
    return null;
  }
}

/** The `limit` query value: 1 to `max`, the default when absent. */
export const limitSchema = (max = MAX_PAGE_LIMIT) =>
  z
    .string()
    .regex(/^\d{1,4}$/, `must be a whole number from 1 to ${max}`)
    .transform(Number)
    .pipe(z.number().int().min(1, 'must be at least 1').max(max, `must be at most ${max}`))
    .default(DEFAULT_PAGE_LIMIT);

/** The `cursor` query value, decoded by `check` (a 400 when it is not one this list returned). */
export const cursorSchema = <T>(check: (parts: unknown[]) => T | null) =>
  z.string().transform((s, ctx): T => {
    const decoded = decodeCursor(s, check);
    if (decoded === null) {
      ctx.addIssue({ code: 'custom', message: 'is not a cursor this API returned' });
      return z.NEVER;
    }
    return decoded;
  });

/** A search term: the start of what the list searches (an email, a name), any case. */
export const searchSchema = text(200)
  .trim()
  .transform((s) => s.toLowerCase());

/** A cursor of [text]: a list sorted by a unique text key (an email). */
export const oneText = (parts: unknown[]): string | null =>
  parts.length === 1 && typeof parts[0] === 'string' ? parts[0] : null;

/** A cursor of [text, uuid]: a list sorted by a text key with the row id as the tiebreaker. */
export const textAndId = (parts: unknown[]): { key: string; id: string } | null =>
  parts.length === 2 && typeof parts[0] === 'string' && typeof parts[1] === 'string' && UUID.test(parts[1])
    ? { key: parts[0], id: parts[1] }
    : null;

/** A cursor of [ISO time, id]: a list sorted by creation time with the row id as the tiebreaker. */
export const timeAndId = (parts: unknown[]): { at: string; id: string } | null =>
  parts.length === 2 &&
  typeof parts[0] === 'string' &&
  EXACT_TIME.test(parts[0]) &&
  typeof parts[1] === 'string' &&
  UUID.test(parts[1])
    ? { at: parts[0], id: parts[1] }
    : null;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
/** Microseconds, as Postgres keeps them: a millisecond Date would skip rows made in the same ms. */
const EXACT_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;

/** One page of a list: the items and the cursor of the next page (null on the last). */
export interface Page<T> {
  readonly items: T[];
  readonly nextCursor: string | null;
}

/**
 * Cuts the `limit + 1` rows a repository returned to one page: the extra row only says that a page
 * follows; the cursor is the sort key of the page's last row.
 */
export function pageOf<R, T>(
  rows: readonly R[],
  limit: number,
  cursorOf: (last: R) => readonly KeyPart[],
  view: (row: R) => T,
): Page<T> {
  const kept = rows.slice(0, limit);
  const last = kept.at(-1);
  return {
    items: kept.map(view),
    nextCursor: rows.length > limit && last !== undefined ? encodeCursor(cursorOf(last)) : null,
  };
}
