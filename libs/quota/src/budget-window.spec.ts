import { describe, expect, it } from '@jest/globals';
import {
  bucketEnd,
  bucketOf,
  bucketTtlSeconds,
  budgetWindow,
  calendarNext,
  calendarStart,
  COUNTER_SLACK_SECONDS,
  DAY_MS,
  nextRelease,
} from './budget-window.js';

const at = (iso: string): number => Date.parse(iso);
const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());
const HOUR = 3_600_000;

describe('calendar windows (UTC)', () => {
  it('a day runs from 00:00 to the next 00:00 UTC, the last millisecond included', () => {
    expect(iso(calendarStart('day', at('2026-11-25T23:59:59.999Z')))).toBe('2026-11-25T00:00:00.000Z');
    expect(iso(calendarStart('day', at('2026-11-26T00:00:00.000Z')))).toBe('2026-11-26T00:00:00.000Z');
    const w = budgetWindow({ period: 'day', window: 'calendar_utc' }, at('2026-11-25T12:00:00Z'));
    expect(w).toEqual({
      buckets: [at('2026-11-25T00:00:00Z')],
      endMs: at('2026-11-26T00:00:00Z'),
      bucketMs: null,
    });
  });

  it('a week is the ISO week: Monday 00:00 UTC, Sunday belonging to the week before', () => {
    // 2026-11-25 is a Wednesday; 2026-11-29 a Sunday; 2026-11-30 a Monday.
    expect(iso(calendarStart('week', at('2026-11-25T10:00:00Z')))).toBe('2026-11-23T00:00:00.000Z');
    expect(iso(calendarStart('week', at('2026-11-29T23:59:59.999Z')))).toBe('2026-11-23T00:00:00.000Z');
    expect(iso(calendarStart('week', at('2026-11-30T00:00:00Z')))).toBe('2026-11-30T00:00:00.000Z');
    // Across a year: 2027-01-03 (Sunday) is in the week that began Monday 2026-12-28.
    expect(iso(calendarStart('week', at('2027-01-03T12:00:00Z')))).toBe('2026-12-28T00:00:00.000Z');
    expect(iso(calendarNext('week', at('2026-12-28T00:00:00Z')))).toBe('2027-01-04T00:00:00.000Z');
  });

  it('a month runs from the 1st to the 1st, December into January', () => {
    expect(iso(calendarStart('month', at('2026-11-30T23:59:59.999Z')))).toBe('2026-11-01T00:00:00.000Z');
    expect(iso(calendarNext('month', at('2026-12-01T00:00:00Z')))).toBe('2027-01-01T00:00:00.000Z');
    expect(iso(calendarNext('month', at('2026-01-01T00:00:00Z')))).toBe('2026-02-01T00:00:00.000Z');
  });

  it('February has 29 days in leap years (2028, 2000) and 28 otherwise (2026, 2100)', () => {
    const feb = (y: number) => (calendarNext('month', Date.UTC(y, 1, 1)) - Date.UTC(y, 1, 1)) / DAY_MS;
    expect([feb(2028), feb(2000), feb(2026), feb(2100)]).toEqual([29, 29, 28, 28]);
    expect(iso(calendarStart('day', at('2028-02-29T18:00:00Z')))).toBe('2028-02-29T00:00:00.000Z');
    expect(iso(calendarStart('month', at('2028-02-29T23:59:59Z')))).toBe('2028-02-01T00:00:00.000Z');
  });

  it('days are 24 h even on DST change dates: windows are UTC, no zone applies', () => {
    // Europe and the US change clocks on these dates; a UTC day does not notice.
    for (const d of ['2026-03-08', '2026-03-29', '2026-10-25', '2026-11-01'])
      expect(bucketEnd({ period: 'day', window: 'calendar_utc' }, at(`${d}T00:00:00Z`))).toBe(
        at(`${d}T00:00:00Z`) + DAY_MS,
      );
  });
});

describe('rolling windows', () => {
  it('a rolling day is the current hour and the 23 before it', () => {
    const w = budgetWindow({ period: 'day', window: 'rolling' }, at('2026-11-25T10:30:00Z'));
    expect(w.buckets).toHaveLength(24);
    expect(iso(w.buckets[0]!)).toBe('2026-11-24T11:00:00.000Z');
    expect(iso(w.buckets[23]!)).toBe('2026-11-25T10:00:00.000Z');
    expect(w.bucketMs).toBe(HOUR);
    expect(iso(w.endMs)).toBe('2026-11-25T11:00:00.000Z');
  });

  it('a rolling week has 7 h buckets and a rolling month 30 days of 30 h buckets', () => {
    const week = budgetWindow({ period: 'week', window: 'rolling' }, at('2026-11-25T10:30:00Z'));
    expect(week.bucketMs).toBe(7 * HOUR);
    expect(week.buckets.at(-1)! + week.bucketMs! - week.buckets[0]!).toBe(7 * DAY_MS);
    const month = budgetWindow({ period: 'month', window: 'rolling' }, at('2026-11-25T10:30:00Z'));
    expect(month.bucketMs).toBe(30 * HOUR);
    expect(month.buckets.at(-1)! + month.bucketMs! - month.buckets[0]!).toBe(30 * DAY_MS);
  });

  it('spend leaves a rolling day when its hour is a day old; the release is its oldest spent bucket', () => {
    const b = { period: 'day', window: 'rolling' } as const;
    const spentAt = at('2026-11-25T10:30:00Z');
    expect(iso(bucketOf(b, spentAt))).toBe('2026-11-25T10:00:00.000Z');
    expect(iso(bucketEnd(b, bucketOf(b, spentAt)))).toBe('2026-11-26T10:00:00.000Z');
    expect(budgetWindow(b, at('2026-11-26T09:59:59.999Z')).buckets).toContain(bucketOf(b, spentAt));
    expect(budgetWindow(b, at('2026-11-26T10:00:00Z')).buckets).not.toContain(bucketOf(b, spentAt));
    const w = budgetWindow(b, at('2026-11-26T09:00:00Z'));
    expect(iso(nextRelease(b, w, w.buckets.indexOf(bucketOf(b, spentAt))))).toBe('2026-11-26T10:00:00.000Z');
    expect(nextRelease(b, w, null)).toBeNull();
  });
});

describe('lifetime, counters and their TTL', () => {
  it('lifetime is one bucket from the epoch that never ends', () => {
    const b = { period: 'lifetime', window: 'calendar_utc' } as const;
    expect(budgetWindow(b, at('2026-11-25T10:30:00Z'))).toEqual({
      buckets: [0],
      endMs: null,
      bucketMs: null,
    });
    expect(nextRelease(b, budgetWindow(b, 0), 0)).toBeNull();
    expect(bucketTtlSeconds(b, 0, at('2026-11-25T10:30:00Z'))).toBe(0);
  });

  it('a counter outlives its bucket by a day, at the writer clock', () => {
    const b = { period: 'day', window: 'calendar_utc' } as const;
    const now = at('2026-11-25T23:00:00Z');
    expect(bucketTtlSeconds(b, calendarStart('day', now), now)).toBe(3600 + COUNTER_SLACK_SECONDS);
    // A request that started yesterday and settles today still gets a live counter.
    expect(bucketTtlSeconds(b, calendarStart('day', now - DAY_MS), now + 1)).toBe(1 + COUNTER_SLACK_SECONDS);
  });
});
