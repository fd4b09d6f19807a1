/** Credits per million tokens, as in the config's `pricing`. */
export interface Pricing {
  readonly input_per_million: number;
  readonly output_per_million: number;
}

export interface TokenUsage {
  readonly inputTokens: number;
  readonly outputTokens: number;
}

/** 1 credit = 1e9 nanocredits; integers keep Redis and Postgres arithmetic exact. */
export const NANOS_PER_CREDIT = 1_000_000_000;

/**
 * Cost of one request in nanocredits. A price per million tokens is `price * 1000` nanocredits per
 * token; rounding once at the end keeps sub-nanocredit prices from being lost per token type.
 */
export function costNanos(usage: TokenUsage, pricing: Pricing): number {
  return Math.round(
    usage.inputTokens * pricing.input_per_million * 1000 +
      usage.outputTokens * pricing.output_per_million * 1000,
  );
}

export function creditsToNanos(credits: number): number {
  return Math.round(credits * NANOS_PER_CREDIT);
}
