/**
 * Budget windows: pure arithmetic on UTC milliseconds (no time zone, so no DST), docs/quota.md.
 *
 * - `calendar_utc`: the UTC day (00:00), the ISO week (Monday 00:00) or the month (the 1st,
 *   00:00) containing now; it resets at the next one. Lifetime is one window from the epoch on.
 * - `rolling`: the last 24 buckets of period / 24 (a day: the current hour and the 23 before it;
 *   a week: 7 h buckets; a month: 30 days in 30 h buckets). Spend leaves the window one bucket at
 *   a time, never later than one period after it was made and at most one bucket earlier. There is
 *   no rolling lifetime.
 */
export type BudgetPeriod = 'day' | 'week' | 'month' | 'lifetime';
export type BudgetWindowKind = 'calendar_utc' | 'rolling';

export const DAY_MS = 86_400_000;
export const ROLLING_BUCKETS = 24;
const ROLLING_PERIOD_MS = { day: DAY_MS, week: 7 * DAY_MS, month: 30 * DAY_MS } as const;

export interface BudgetWindow {
  /** Bucket starts making up the window, oldest first: one, or 24 for a rolling window. */
  readonly buckets: readonly number[];
  /** The window's end (exclusive): when a calendar window resets; null for lifetime. */
  readonly endMs: number | null;
  /** Length of a rolling window's buckets; null for one-bucket windows. */
  readonly bucketMs: number | null;
}

type Shape = { readonly period: BudgetPeriod; readonly window: BudgetWindowKind };

/** Start of the calendar period (UTC) containing `ms`. */
export function calendarStart(period: Exclude<BudgetPeriod, 'lifetime'>, ms: number): number {
  const d = new Date(ms);
  const day = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate());
  if (period === 'day') return day;
  if (period === 'week') return day - ((d.getUTCDay() + 6) % 7) * DAY_MS; // ISO: Monday first
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
}

/** Start of the calendar period after the one starting at `start`. */
export function calendarNext(period: Exclude<BudgetPeriod, 'lifetime'>, start: number): number {
  if (period === 'day') return start + DAY_MS;
  if (period === 'week') return start + 7 * DAY_MS;
  const d = new Date(start);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1); // Date.UTC carries December over
}

/** Bucket length of a rolling window. */
export function rollingBucketMs(period: Exclude<BudgetPeriod, 'lifetime'>): number {
  return ROLLING_PERIOD_MS[period] / ROLLING_BUCKETS;
}

/** The bucket a charge made at `ms` counts in: its start. */
export function bucketOf(b: Shape, ms: number): number {
  if (b.period === 'lifetime') return 0;
  if (b.window === 'calendar_utc') return calendarStart(b.period, ms);
  const size = rollingBucketMs(b.period);
  return Math.floor(ms / size) * size;
}

/** When the bucket starting at `start` stops counting in the window; null = never (lifetime). */
export function bucketEnd(b: Shape, start: number): number | null {
  if (b.period === 'lifetime') return null;
  if (b.window === 'calendar_utc') return calendarNext(b.period, start);
  return start + ROLLING_PERIOD_MS[b.period];
}

/** The window a request admitted at `nowMs` is checked against. */
export function budgetWindow(b: Shape, nowMs: number): BudgetWindow {
  const current = bucketOf(b, nowMs);
  if (b.period === 'lifetime' || b.window === 'calendar_utc')
    return { buckets: [current], endMs: bucketEnd(b, current), bucketMs: null };
  const size = rollingBucketMs(b.period);
  const buckets = Array.from(
    { length: ROLLING_BUCKETS },
    (_, i) => current - (ROLLING_BUCKETS - 1 - i) * size,
  );
  return { buckets, endMs: current + size, bucketMs: size };
}

/**
 * When spend next leaves the window: a calendar window's end; for a rolling one, the end of its
 * oldest bucket holding spend (`firstSpent`: index into `buckets`), null if it holds none.
 */
export function nextRelease(b: Shape, w: BudgetWindow, firstSpent: number | null): number | null {
  if (b.window === 'calendar_utc' || b.period === 'lifetime') return w.endMs;
  return firstSpent === null ? null : bucketEnd(b, w.buckets[firstSpent]!);
}

/** A spend counter lives until its bucket stops counting, plus a day for edges with slow clocks. */
export const COUNTER_SLACK_SECONDS = 86_400;

/** EXPIRE seconds of a bucket's counter written at `nowMs`; 0 = no expiry (lifetime). */
export function bucketTtlSeconds(b: Shape, start: number, nowMs: number): number {
  const end = bucketEnd(b, start);
  if (end === null) return 0;
  return Math.max(1, Math.ceil((end - nowMs) / 1000)) + COUNTER_SLACK_SECONDS;
}
