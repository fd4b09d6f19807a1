import { describe, expect, it } from '@jest/globals';
import { creditsOf, nanosOf } from './credits.js';

describe('credits', () => {
  it.each([
    [0, 0n],
    [1, 1_000_000_000n],
    [0.1, 100_000_000n],
    [12.345678901, 12_345_678_901n],
    [-2.5, -2_500_000_000n],
    [1e-9, 1n],
  ])('%p credits = %p nanos, both ways', (credits, nanos) => {
    expect(nanosOf(credits)).toBe(nanos);
    expect(creditsOf(nanos)).toBeCloseTo(credits, 9);
  });

  it('reads int8 strings from Postgres', () => {
    expect(creditsOf('123456789012345678')).toBeCloseTo(123_456_789.012_345, 5);
  });

  it('rounds below a nanocredit', () => {
    expect(nanosOf(0.0000000004)).toBe(0n);
    expect(nanosOf(0.0000000006)).toBe(1n);
  });

  it('refuses non-finite amounts', () => {
    expect(() => nanosOf(Number.NaN)).toThrow(RangeError);
    expect(() => nanosOf(Infinity)).toThrow(RangeError);
  });
});
