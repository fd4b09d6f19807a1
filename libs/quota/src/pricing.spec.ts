import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { appliedPrices, costNanos, creditsToNanos } from './pricing.js';

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

describe('costNanos by component (fast-check)', () => {
  /** Prices with up to 4 decimals, as vendors publish them; kept as integers of 1e-4 credit. */
  const price = fc.integer({ min: 0, max: 1_000_000 });
  const count = fc.integer({ min: 0, max: 2_000_000 });

  it('is the sum of each component times its price, rounded once, half up', () => {
    fc.assert(
      fc.property(
        fc.record({ uncached: count, read: count, w5m: count, w1h: count, output: count }),
        fc.record({ input: price, output: price, read: price, w5m: price, w1h: price }),
        (u, p) => {
          const pricing = {
            input_per_million: p.input / 1e4,
            output_per_million: p.output / 1e4,
            cache_read_per_million: p.read / 1e4,
            cache_write_5m_per_million: p.w5m / 1e4,
            cache_write_1h_per_million: p.w1h / 1e4,
          };
          const usage = {
            inputTokens: u.uncached + u.read + u.w5m + u.w1h,
            cachedTokens: u.read,
            cacheWrite5mTokens: u.w5m,
            cacheWrite1hTokens: u.w1h,
            outputTokens: u.output,
          };
          // tokens x (p / 1e4) credits per million = tokens x p / 10 nanocredits.
          const units =
            BigInt(u.uncached) * BigInt(p.input) +
            BigInt(u.read) * BigInt(p.read) +
            BigInt(u.w5m) * BigInt(p.w5m) +
            BigInt(u.w1h) * BigInt(p.w1h) +
            BigInt(u.output) * BigInt(p.output);
          const expected = (units + 5n) / 10n; // half up
          expect(BigInt(costNanos(usage, pricing))).toBe(expected);
        },
      ),
    );
  });

  it('charges cache prices the model does not set at the input price, and says so', () => {
    const prices = appliedPrices(
      { input_per_million: 2, output_per_million: 8, cache_read_per_million: 0.5 },
      10,
    );
    expect(prices).toMatchObject({ cacheRead: 5e8, cacheWrite5m: 2e9, cacheWrite1h: 2e9 });
    expect(prices.fallback).toEqual(['cache_write_5m', 'cache_write_1h']);
  });

  it('prices every token of a request above a tier at the tier', () => {
    const sonnet = {
      input_per_million: 3,
      output_per_million: 15,
      cache_read_per_million: 0.3,
      tiers: [
        {
          above_input_tokens: 200_000,
          input_per_million: 6,
          output_per_million: 22.5,
          cache_read_per_million: 0.6,
        },
      ],
    };
    const at = (input: number) =>
      costNanos({ inputTokens: input, cachedTokens: 100_000, outputTokens: 1000 }, sonnet);
    expect(at(200_000)).toBe(100_000 * 3000 + 100_000 * 300 + 1000 * 15_000);
    expect(at(200_001)).toBe(100_001 * 6000 + 100_000 * 600 + 1000 * 22_500);
    expect(appliedPrices(sonnet, 200_001).tier).toBe(200_000);
  });
});
