import { describe, expect, it } from '@jest/globals';
import { costNanos, creditsToNanos } from './pricing.js';

describe('costNanos', () => {
  it('prices per million tokens exactly', () => {
    expect(
      costNanos({ inputTokens: 1_000_000, outputTokens: 0 }, { input_per_million: 2, output_per_million: 8 }),
    ).toBe(2e9);
    expect(
      costNanos({ inputTokens: 10, outputTokens: 20 }, { input_per_million: 0.15, output_per_million: 0.6 }),
    ).toBe(13_500);
  });

  it('keeps fractional nanocredits until the final rounding', () => {
    expect(
      costNanos(
        { inputTokens: 1, outputTokens: 1 },
        { input_per_million: 0.0004, output_per_million: 0.0004 },
      ),
    ).toBe(1);
  });

  it('is zero for free models', () => {
    expect(
      costNanos({ inputTokens: 5, outputTokens: 5 }, { input_per_million: 0, output_per_million: 0 }),
    ).toBe(0);
    expect(creditsToNanos(1.5)).toBe(1_500_000_000);
  });
});
