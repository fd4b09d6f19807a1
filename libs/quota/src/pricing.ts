/**
 * Prices and charges. A model's config prices are credits per million tokens, one per usage
 * component (text and audio apart where a vendor prices them apart), plus fees per thousand of a usage counter (web searches, requests, billed
 * characters); a request's charge is each component's tokens times its price plus each counter
 * times its fee, summed in exact integers and rounded once (docs/quota.md, "Usage components and prices").
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
  /** Uncached prompt audio; absent: the input price (audio is charged as text). */
  readonly input_audio_per_million?: number | undefined;
  /** Prompt audio read from the cache; absent: the cache read price (cached audio is a cache read). */
  readonly cache_read_audio_per_million?: number | undefined;
  /** Audio output (speech); absent: the output price (audio output is charged as text output). */
  readonly output_audio_per_million?: number | undefined;
}

/** Fees per thousand of a usage counter, in credits; a counter without a fee costs nothing. */
export interface FeeList {
  /** Per thousand web searches the vendor ran (Anthropic's `server_tool_use.web_search_requests`). */
  readonly web_search_requests?: number | undefined;
  /** Per thousand requests answered with a usage (Perplexity's request fee). */
  readonly requests?: number | undefined;
  /** Per thousand prompt characters the vendor bills (Vertex's text embedding models). */
  readonly input_characters?: number | undefined;
}

/** A higher price for every token of a request whose prompt is above a size. */
export interface PriceTier extends PriceList {
  readonly above_input_tokens: number;
}

export interface Pricing extends PriceList {
  readonly tiers?: readonly PriceTier[] | undefined;
  /** Not tiered: a fee is per request or per search, whatever the prompt's size. */
  readonly fees_per_thousand?: FeeList | undefined;
}

/**
 * A usage as priced: the canonical usage (cached and written tokens are parts of the input, the
 * uncached audio a part of the uncached input, the cached audio a part of the cache reads, the
 * audio output a part of the output), and the counters fees are charged on.
 */
export interface TokenUsage {
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly cachedTokens?: number;
  readonly cacheWrite5mTokens?: number;
  readonly cacheWrite1hTokens?: number;
  readonly audioInputTokens?: number;
  readonly cachedAudioInputTokens?: number;
  readonly audioOutputTokens?: number;
  readonly webSearchRequests?: number;
  readonly inputCharacters?: number;
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
  /** The audio input price; absent when the model sets none, and audio is charged as input. */
  readonly inputAudio?: number;
  /** The cached audio price; absent when the model sets none, and cached audio is a cache read. */
  readonly cacheReadAudio?: number;
  /** The audio output price; absent when the model sets none, and audio output is output. */
  readonly outputAudio?: number;
  /** Fees in nanocredits per thousand counted; absent when the model sets none. */
  readonly fees?: AppliedFees;
}

export interface AppliedFees {
  readonly webSearchRequests?: number;
  readonly requests?: number;
  readonly inputCharacters?: number;
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
  // The new prices are keys only of the models that set them, so the prices logged for every
  // other model (and their charge) are what they were before audio and fees existed.
  const applied: { -readonly [K in keyof AppliedPrices]: AppliedPrices[K] } = {
    input: nanos(list.input_per_million),
    output: nanos(list.output_per_million),
    cacheRead: cache(list.cache_read_per_million, 'cache_read'),
    cacheWrite5m: cache(list.cache_write_5m_per_million, 'cache_write_5m'),
    cacheWrite1h: cache(list.cache_write_1h_per_million, 'cache_write_1h'),
    tier,
    fallback,
  };
  if (list.input_audio_per_million !== undefined) applied.inputAudio = nanos(list.input_audio_per_million);
  if (list.cache_read_audio_per_million !== undefined)
    applied.cacheReadAudio = nanos(list.cache_read_audio_per_million);
  if (list.output_audio_per_million !== undefined) applied.outputAudio = nanos(list.output_audio_per_million);
  const fees = appliedFees(pricing.fees_per_thousand);
  if (fees !== null) applied.fees = fees;
  return applied;
}

function appliedFees(list: FeeList | undefined): AppliedFees | null {
  if (list === undefined) return null;
  const fees: { -readonly [K in keyof AppliedFees]: AppliedFees[K] } = {};
  if (list.web_search_requests !== undefined) fees.webSearchRequests = nanos(list.web_search_requests);
  if (list.requests !== undefined) fees.requests = nanos(list.requests);
  if (list.input_characters !== undefined) fees.inputCharacters = nanos(list.input_characters);
  return Object.keys(fees).length > 0 ? fees : null;
}

/** The disjoint components of a usage, as priced, and the counters fees are charged on. */
export interface PricedComponents {
  /** Uncached prompt tokens other than the audio priced apart. */
  readonly input: number;
  /** Uncached prompt audio, when the prices set an audio price (else it stays in `input`). */
  readonly inputAudio: number;
  /** Cache reads other than the audio priced apart. */
  readonly cacheRead: number;
  /** Cached prompt audio, when the prices set a cached audio price (else it stays in `cacheRead`). */
  readonly cacheReadAudio: number;
  readonly cacheWrite5m: number;
  readonly cacheWrite1h: number;
  /** Output tokens other than the audio priced apart. */
  readonly output: number;
  /** Audio output, when the prices set an audio output price (else it stays in `output`). */
  readonly outputAudio: number;
  readonly webSearchRequests: number;
  /** 1: the request itself, for a request fee. */
  readonly requests: number;
  /** Not tokens: the prompt characters billed per character. */
  readonly inputCharacters: number;
}

export function componentsOf(usage: TokenUsage, prices: AppliedPrices): PricedComponents {
  const cacheRead = usage.cachedTokens ?? 0;
  const cacheWrite5m = usage.cacheWrite5mTokens ?? 0;
  const cacheWrite1h = usage.cacheWrite1hTokens ?? 0;
  const uncached = Math.max(0, usage.inputTokens - cacheRead - cacheWrite5m - cacheWrite1h);
  const audio = prices.inputAudio === undefined ? 0 : Math.min(usage.audioInputTokens ?? 0, uncached);
  const cachedAudio = pricedApart(prices.cacheReadAudio, usage.cachedAudioInputTokens, cacheRead);
  const audioOutput = pricedApart(prices.outputAudio, usage.audioOutputTokens, usage.outputTokens);
  return {
    input: uncached - audio,
    inputAudio: audio,
    cacheRead: cacheRead - cachedAudio,
    cacheReadAudio: cachedAudio,
    cacheWrite5m,
    cacheWrite1h,
    output: usage.outputTokens - audioOutput,
    outputAudio: audioOutput,
    webSearchRequests: usage.webSearchRequests ?? 0,
    requests: 1,
    inputCharacters: usage.inputCharacters ?? 0,
  };
}

/** The tokens of a part priced apart (audio): none without its price, never more than its whole. */
const pricedApart = (price: number | undefined, tokens: number | undefined, whole: number): number =>
  price === undefined ? 0 : Math.min(tokens ?? 0, whole);

type TokenComponent = 'input' | 'cacheRead' | 'cacheWrite5m' | 'cacheWrite1h' | 'output';
const PER_MILLION = 1_000_000n;
/** A fee is per thousand counted: x 1000 puts it in the token prices' units (per million). */
const FEE_SCALE = 1_000n;

/**
 * Each part's cost in nanocredits x 1e6 (tokens x nanocredits per million tokens; counted x
 * nanocredits per thousand x 1000), exact in BigInt.
 */
function scaledCosts(parts: PricedComponents, prices: AppliedPrices): Record<keyof PricedComponents, bigint> {
  const token = (c: TokenComponent): bigint => BigInt(parts[c]) * BigInt(prices[c]);
  const fee = (n: number, price: number | undefined): bigint => BigInt(n) * BigInt(price ?? 0) * FEE_SCALE;
  return {
    input: token('input'),
    inputAudio: BigInt(parts.inputAudio) * BigInt(prices.inputAudio ?? 0),
    cacheRead: token('cacheRead'),
    cacheReadAudio: BigInt(parts.cacheReadAudio) * BigInt(prices.cacheReadAudio ?? 0),
    cacheWrite5m: token('cacheWrite5m'),
    cacheWrite1h: token('cacheWrite1h'),
    output: token('output'),
    outputAudio: BigInt(parts.outputAudio) * BigInt(prices.outputAudio ?? 0),
    webSearchRequests: fee(parts.webSearchRequests, prices.fees?.webSearchRequests),
    requests: fee(parts.requests, prices.fees?.requests),
    inputCharacters: fee(parts.inputCharacters, prices.fees?.inputCharacters),
  };
}

/**
 * The charge in nanocredits: sum of tokens x price (nanocredits per million tokens) over the
 * components and of counted x fee, in BigInt so no product loses a digit, divided by a million
 * and rounded half up once. Rounding each component instead could be off by up to 2 nanocredits
 * per request.
 */
export function costOf(usage: TokenUsage, prices: AppliedPrices): number {
  // Summed in place, without the objects of componentsOf/scaledCosts: this runs for every request.
  const cacheRead = usage.cachedTokens ?? 0;
  const cacheWrite5m = usage.cacheWrite5mTokens ?? 0;
  const cacheWrite1h = usage.cacheWrite1hTokens ?? 0;
  const uncached = Math.max(0, usage.inputTokens - cacheRead - cacheWrite5m - cacheWrite1h);
  const audio = prices.inputAudio === undefined ? 0 : Math.min(usage.audioInputTokens ?? 0, uncached);
  const cachedAudio = pricedApart(prices.cacheReadAudio, usage.cachedAudioInputTokens, cacheRead);
  const audioOutput = pricedApart(prices.outputAudio, usage.audioOutputTokens, usage.outputTokens);
  let total =
    BigInt(uncached - audio) * BigInt(prices.input) +
    BigInt(cacheRead - cachedAudio) * BigInt(prices.cacheRead) +
    BigInt(cacheWrite5m) * BigInt(prices.cacheWrite5m) +
    BigInt(cacheWrite1h) * BigInt(prices.cacheWrite1h) +
    BigInt(usage.outputTokens - audioOutput) * BigInt(prices.output);
  if (audio > 0) total += BigInt(audio) * BigInt(prices.inputAudio!);
  if (cachedAudio > 0) total += BigInt(cachedAudio) * BigInt(prices.cacheReadAudio!);
  if (audioOutput > 0) total += BigInt(audioOutput) * BigInt(prices.outputAudio!);
  const fees = prices.fees;
  if (fees !== undefined) {
    const searches = BigInt(usage.webSearchRequests ?? 0) * BigInt(fees.webSearchRequests ?? 0);
    const characters = BigInt(usage.inputCharacters ?? 0) * BigInt(fees.inputCharacters ?? 0);
    total += (searches + characters + BigInt(fees.requests ?? 0)) * FEE_SCALE;
  }
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
  const scaled = scaledCosts(componentsOf(usage, prices), prices);
  const cost = (c: keyof PricedComponents): number => Number(scaled[c]) / 1_000_000;
  return {
    input: cost('input'),
    inputAudio: cost('inputAudio'),
    cacheRead: cost('cacheRead'),
    cacheReadAudio: cost('cacheReadAudio'),
    cacheWrite5m: cost('cacheWrite5m'),
    cacheWrite1h: cost('cacheWrite1h'),
    output: cost('output'),
    outputAudio: cost('outputAudio'),
    webSearchRequests: cost('webSearchRequests'),
    requests: cost('requests'),
    inputCharacters: cost('inputCharacters'),
  };
}

export function creditsToNanos(credits: number): number {
  return Math.round(credits * NANOS_PER_CREDIT);
}
