import { type RawBuilder, sql } from 'kysely';

/**
 * Pieces the console's keyset-paginated lists share (docs/console-api.md, Pagination). Every list
 * is ordered by a key an index holds, with the row id as the tiebreaker, and a page starts after
 * the previous page's last key: no OFFSET, so a deep page costs what the first one does.
 */

/**
 * A row's time as text with every microsecond Postgres keeps (a JS Date keeps milliseconds: a
 * cursor built from one would skip or repeat rows created in the same millisecond).
 */
export const exactTime = (column: string): RawBuilder<string> =>
  sql<string>`to_char(${sql.ref(column)} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;

/** `column collate "C"`: byte order, so a prefix `like` and the order use one btree in any locale. */
export const bytewise = (column: string): RawBuilder<string> => sql<string>`(${sql.ref(column)} collate "C")`;

/** `lower(column) collate "C"`: a case-insensitive sort and prefix search key. */
export const lowerBytewise = (column: string): RawBuilder<string> =>
  sql<string>`(lower(${sql.ref(column)}) collate "C")`;

/** A `like` pattern matching what starts with `prefix`, its wildcards taken literally. */
export const startsWith = (prefix: string): string => `${prefix.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/** A page that starts after (or before) a row: its exact creation time (`exactTime`) and id. */
export interface TimeAndId {
  readonly at: string;
  readonly id: string;
}

/** `(created_at, id) <op> (at, id)`: the keyset condition of a list ordered by creation then id. */
export const pastRow = (table: string, op: '<' | '>', row: TimeAndId): RawBuilder<boolean> =>
  sql<boolean>`(${sql.ref(`${table}.created_at`)}, ${sql.ref(`${table}.id`)}) ${sql.raw(op)} (${row.at}::timestamptz, ${row.id}::uuid)`;
