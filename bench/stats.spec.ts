import { describe, expect, it } from '@jest/globals';
import { median, percentile, spread } from './stats.js';

describe('median', () => {
  it('takes the middle value of an odd count, whatever the order', () => {
    expect(median([5])).toBe(5);
    expect(median([9, 1, 5])).toBe(5);
    expect(median([3, -2, 10, 7, 4])).toBe(4);
  });

  it('averages the two middle values of an even count (two pairs give their mean)', () => {
    expect(median([1, 4])).toBe(2.5);
    expect(median([10, 2, 8, 4])).toBe(6);
  });

  it('sorts numerically, not as strings', () => {
    expect(median([100, 9, 20])).toBe(20);
  });

  it('is NaN for no samples and leaves its input alone', () => {
    expect(median([])).toBeNaN();
    const samples = [3, 1, 2];
    median(samples);
    expect(samples).toEqual([3, 1, 2]);
  });
});

describe('percentile', () => {
  const samples = [10, 1, 9, 2, 8, 3, 7, 4, 6, 5];

  it('is the nearest rank of the sorted samples', () => {
    expect(percentile(samples, 50)).toBe(5);
    expect(percentile(samples, 90)).toBe(9);
    expect(percentile(samples, 91)).toBe(10);
    expect(percentile(samples, 100)).toBe(10);
  });

  it('clamps to the smallest sample at 0 and is NaN for no samples', () => {
    expect(percentile(samples, 0)).toBe(1);
    expect(percentile([], 50)).toBeNaN();
  });
});

describe('spread', () => {
  it('is the median, min and max of the rounds that had the figure', () => {
    expect(spread([3, 1, 2, Number.NaN])).toEqual({ median: 2, min: 1, max: 3, rounds: 3 });
    expect(spread([5])).toEqual({ median: 5, min: 5, max: 5, rounds: 1 });
  });

  it('is NaN over no rounds', () => {
    const s = spread([Number.NaN]);
    expect(s.rounds).toBe(0);
    expect([s.median, s.min, s.max].every(Number.isNaN)).toBe(true);
  });
});
