import { type RequestLog } from '#libs/db';
import { type AppliedPrices, componentCosts } from '#libs/quota';

/** One priced part of a request's usage, as the log detail shows it. */
export interface UsageComponent {
  readonly tokens: number;
  /** Credits per million tokens charged for it. */
  readonly pricePerMillion: number;
  /** What it cost, in credits, before the request's one rounding to the nanocredit. */
  readonly costCredits: number;
  /** Charged at the input price because the model sets no price for it (the fallback rule). */
  readonly fallback: boolean;
}

export interface UsageBreakdown {
  readonly uncachedInput: UsageComponent;
  readonly cacheRead: UsageComponent;
  readonly cacheWrite5m: UsageComponent;
  readonly cacheWrite1h: UsageComponent;
  readonly output: UsageComponent;
  /** Part of the output (already priced with it). */
  readonly reasoningTokens: number;
  /** `above_input_tokens` of the price tier the request was charged at, or null (base prices). */
  readonly priceTier: number | null;
}

const NANOS_PER_MILLION_TO_CREDITS = 1e9;

/**
 * The request's usage by component with the prices it was charged at (kept on the row), or null
 * for rows without prices (older edges, models without prices, requests that used nothing).
 */
export function usageBreakdown(row: RequestLog): UsageBreakdown | null {
  const prices = row.prices as AppliedPrices | null;
  if (prices === null || row.input_tokens === null || row.output_tokens === null) return null;
  const usage = {
    inputTokens: row.input_tokens,
    outputTokens: row.output_tokens,
    cachedTokens: row.cached_tokens ?? 0,
    cacheWrite5mTokens: row.cache_write_5m_tokens ?? 0,
    cacheWrite1hTokens: row.cache_write_1h_tokens ?? 0,
  };
  const costs = componentCosts(usage, prices);
  const part = (
    tokens: number,
    key: keyof typeof costs,
    fallback: AppliedPrices['fallback'][number] | null,
  ): UsageComponent => ({
    tokens,
    pricePerMillion: prices[key] / NANOS_PER_MILLION_TO_CREDITS,
    costCredits: costs[key] / NANOS_PER_MILLION_TO_CREDITS,
    fallback: fallback !== null && prices.fallback.includes(fallback),
  });
  const uncached =
    usage.inputTokens - usage.cachedTokens - usage.cacheWrite5mTokens - usage.cacheWrite1hTokens;
  return {
    uncachedInput: part(Math.max(0, uncached), 'input', null),
    cacheRead: part(usage.cachedTokens, 'cacheRead', 'cache_read'),
    cacheWrite5m: part(usage.cacheWrite5mTokens, 'cacheWrite5m', 'cache_write_5m'),
    cacheWrite1h: part(usage.cacheWrite1hTokens, 'cacheWrite1h', 'cache_write_1h'),
    output: part(usage.outputTokens, 'output', null),
    reasoningTokens: row.reasoning_tokens ?? 0,
    priceTier: prices.tier,
  };
}
