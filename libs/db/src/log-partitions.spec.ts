import { describe, expect, it } from '@jest/globals';
import { logPartitionOf, logPartitionsAround, parseLogPartitionName } from './log-partitions.js';

describe('log partitions', () => {
  it('names a month and bounds it in UTC', () => {
    const p = logPartitionOf(2026, 0);
    expect(p).toEqual({
      name: 'request_logs_p2026_01',
      from: new Date('2026-01-01T00:00:00.000Z'),
      to: new Date('2026-02-01T00:00:00.000Z'),
    });
  });

  it('rolls over the year when looking ahead', () => {
    const names = logPartitionsAround(new Date('2026-11-30T23:59:59Z'), 2).map((p) => p.name);
    expect(names).toEqual(['request_logs_p2026_11', 'request_logs_p2026_12', 'request_logs_p2027_01']);
  });

  it('uses the UTC month even when local time is already the next month', () => {
    expect(logPartitionsAround(new Date('2026-03-31T23:30:00-05:00'), 0)[0]?.name).toBe(
      'request_logs_p2026_04',
    );
    expect(logPartitionsAround(new Date('2026-04-01T00:30:00+02:00'), 0)[0]?.name).toBe(
      'request_logs_p2026_03',
    );
  });

  it('parses its own names and nothing else', () => {
    expect(parseLogPartitionName('request_logs_p2026_12')?.to).toEqual(new Date('2027-01-01T00:00:00Z'));
    expect(parseLogPartitionName('request_logs_default')).toBeNull();
    expect(parseLogPartitionName('request_logs_p2026_1')).toBeNull();
  });
});
