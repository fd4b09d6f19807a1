/**
 * Prices and charges. A model's config prices are credits per million tokens, one per usage
 * component; a request's charge is each component's tokens times its price, summed in exact
 * integers and rounded once (docs/quota.md, "Usage components and prices").
 */

/** One set of prices, credits per million tokens, as in the config's `pricing`. */
export interface PriceList {
  readonly input_per_million: number;
  readonly output_per_million: number;
  /** Cache reads; absent: the input price (the fallback rule). */
  readonly cache_read_per_million?: number | undefined;
  /** 5-minute cache writes; absent: the input price. */
  readonly cache_write_5m_per_million?: number | undefined;
  /** 1-hour cache writes; absent: the input price. */
  readonly cache_write_1h_per_million?: number | undefined;
}

/** A higher price for every token of a request whose prompt is above a size. */
export interface PriceTier extends PriceList {
  readonly above_input_tokens: number;
}

export interface Pricing extends PriceList {
  readonly tiers?: readonly PriceTier[] | undefined;
}

/** A usage as priced: the canonical usage (cached and written tokens are parts of the input). */
export interface TokenUsage {
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly cachedTokens?: number;
  readonly cacheWrite5mTokens?: number;
  readonly cacheWrite1hTokens?: number;
}

export type CachePrice = 'cache_read' | 'cache_write_5m' | 'cache_write_1h';

/**
 * The prices applied to one request, in nanocredits per million tokens (integers: a config price
 * with more than 9 decimals is rounded to the nearest 1e-9 credit per million tokens). Kept on the
 * log row, so the console can show what each component cost at the prices of that day.
 */
export interface AppliedPrices {
  readonly input: number;
  readonly output: number;
  readonly cacheRead: number;
  readonly cacheWrite5m: number;
  readonly cacheWrite1h: number;
  /** `above_input_tokens` of the tier applied, or null for the base prices. */
  readonly tier: number | null;
  /** Cache prices the model does not set, charged at the input price. */
  readonly fallback: readonly CachePrice[];
}

/** 1 credit = 1e9 nanocredits; integers keep Redis and Postgres arithmetic exact. */
export const NANOS_PER_CREDIT = 1_000_000_000;

const nanos = (creditsPerMillion: number): number => Math.round(creditsPerMillion * NANOS_PER_CREDIT);

/**
 * The prices for a request with `inputTokens` prompt tokens (cached and written ones included):
 * the highest tier whose `above_input_tokens` the prompt exceeds, else the base prices. A cache
 * price the list does not set is its input price.
 */
export function appliedPrices(pricing: Pricing, inputTokens: number): AppliedPrices {
  let list: PriceList = pricing;
  let tier: number | null = null;
  for (const t of pricing.tiers ?? []) {
    if (inputTokens > t.above_input_tokens && (tier === null || t.above_input_tokens > tier)) {
      list = t;
      tier = t.above_input_tokens;
    }
  }
  const fallback: CachePrice[] = [];
  const cache = (price: number | undefined, name: CachePrice): number => {
    if (price !== undefined) return nanos(price);
    fallback.push(name);
    return nanos(list.input_per_million);
  };
  return {
    input: nanos(list.input_per_million),
    output: nanos(list.output_per_million),
    cacheRead: cache(list.cache_read_per_million, 'cache_read'),
    cacheWrite5m: cache(list.cache_write_5m_per_million, 'cache_write_5m'),
    cacheWrite1h: cache(list.cache_write_1h_per_million, 'cache_write_1h'),
    tier,
    fallback,
  };
}

/** The disjoint components of a usage, as priced. */
export interface PricedComponents {
  readonly input: number;
  readonly cacheRead: number;
  readonly cacheWrite5m: number;
  readonly cacheWrite1h: number;
  readonly output: number;
}

export function componentsOf(usage: TokenUsage): PricedComponents {
  const cacheRead = usage.cachedTokens ?? 0;
  const cacheWrite5m = usage.cacheWrite5mTokens ?? 0;
  const cacheWrite1h = usage.cacheWrite1hTokens ?? 0;
  return {
    input: Math.max(0, usage.inputTokens - cacheRead - cacheWrite5m - cacheWrite1h),
    cacheRead,
    cacheWrite5m,
    cacheWrite1h,
    output: usage.outputTokens,
  };
}

const COMPONENTS = ['input', 'cacheRead', 'cacheWrite5m', 'cacheWrite1h', 'output'] as const;
const PER_MILLION = 1_000_000n;

/**
 * The charge in nanocredits: sum of tokens x price (nanocredits per million tokens) over the
 * components, in BigInt so no product loses a digit, divided by a million and rounded half up
 * once. Rounding each component instead could be off by up to 2 nanocredits per request.
 */
export function costOf(usage: TokenUsage, prices: AppliedPrices): number {
  const parts = componentsOf(usage);
  let total = 0n;
  for (const c of COMPONENTS) total += BigInt(parts[c]) * BigInt(prices[c]);
  return Number((total + PER_MILLION / 2n) / PER_MILLION);
}

/** The charge of a usage at a model's prices (its tier chosen by the prompt size). */
export function costNanos(usage: TokenUsage, pricing: Pricing): number {
  return costOf(usage, appliedPrices(pricing, usage.inputTokens));
}

/**
 * What each component cost, in nanocredits before the one rounding (fractions of a nanocredit
 * are possible with prices below 0.001 credit per million): for display, never for charging.
 */
export function componentCosts(usage: TokenUsage, prices: AppliedPrices): PricedComponents {
  const parts = componentsOf(usage);
  const cost = (c: (typeof COMPONENTS)[number]): number => (parts[c] * prices[c]) / 1_000_000;
  return {
    input: cost('input'),
    cacheRead: cost('cacheRead'),
    cacheWrite5m: cost('cacheWrite5m'),
    cacheWrite1h: cost('cacheWrite1h'),
    output: cost('output'),
  };
}

export function creditsToNanos(credits: number): number {
  return Math.round(credits * NANOS_PER_CREDIT);
}
