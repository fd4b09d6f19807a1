import { type ColumnType } from 'kysely';

/**
 * Postgres `bigint` (int8). node-postgres returns int8 as a decimal string and we keep it that
 * way everywhere (no global type parser): nanocredit sums overflow 2^53 long before they
 * overflow int8, and strings survive JSON.stringify where JS bigints throw. Convert with
 * `BigInt(value)` where arithmetic is needed. Writes accept number, bigint or string.
 */
export type Int8 = ColumnType<string, string | number | bigint, string | number | bigint>;

/** A nullable int8 that may be left out of an insert. */
export type NullableInt8 = ColumnType<
  string | null,
  string | number | bigint | null | undefined,
  string | number | bigint | null
>;

/** timestamptz, read as a Date (node-postgres default). */
export type Timestamp = ColumnType<Date, Date | string, Date | string>;

/** A nullable timestamptz that may be left out of an insert. */
export type NullableTimestamp = ColumnType<
  Date | null,
  Date | string | null | undefined,
  Date | string | null
>;

/** A timestamptz the database fills with now() on insert. */
export type CreatedAt = ColumnType<Date, Date | string | undefined, never>;
