import { type RequestLog } from '#libs/db';
import { type AppliedPrices, componentCosts } from '#libs/quota';

/** One priced part of a request's usage, as the log detail shows it. */
export interface UsageComponent {
  readonly tokens: number;
  /** Credits per million tokens charged for it. */
  readonly pricePerMillion: number;
  /** What it cost, in credits, before the request's one rounding to the nanocredit. */
  readonly costCredits: number;
  /**
   * Charged at another component's price because the model sets none for it (the fallback rule):
   * a cache price at the input price, audio at its text counterpart's (input, cache read, output).
   */
  readonly fallback: boolean;
}

/** A fee per request, per search or per billed character, as the log detail shows it. */
export interface FeeComponent {
  /** The usage counter it is charged on. */
  readonly counter: 'web_search_requests' | 'requests' | 'input_characters';
  readonly count: number;
  /** Credits per thousand counted (0: the model sets no fee for it). */
  readonly pricePerThousand: number;
  readonly costCredits: number;
}

export interface UsageBreakdown {
  /** Uncached prompt tokens, less the audio when the model prices audio apart. */
  readonly uncachedInput: UsageComponent;
  /**
   * Uncached prompt audio: at the model's audio price, or, when it sets none, at the input price
   * (`fallback`, and then not a part of `uncachedInput`: each token is in one component only).
   */
  readonly audioInput: UsageComponent;
  /** Cache reads, less the audio (shown apart, as `audioInput` is). */
  readonly cacheRead: UsageComponent;
  /** Prompt audio read from the cache: at the cached audio price, else at the cache read price. */
  readonly cacheReadAudio: UsageComponent;
  readonly cacheWrite5m: UsageComponent;
  readonly cacheWrite1h: UsageComponent;
  /** Output, less the audio (shown apart, as `audioInput` is). */
  readonly output: UsageComponent;
  /** Audio output (speech): at the audio output price, else at the output price (`fallback`). */
  readonly audioOutput: UsageComponent;
  /** Part of the output (already priced with it). */
  readonly reasoningTokens: number;
  /** `above_input_tokens` of the price tier the request was charged at, or null (base prices). */
  readonly priceTier: number | null;
  /** The fees the model sets, and any counter reported without one (charged nothing). */
  readonly fees: readonly FeeComponent[];
}

const NANOS_PER_MILLION_TO_CREDITS = 1e9;
const NANOS_PER_CREDIT = 1e9;

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
    audioInputTokens: row.audio_input_tokens ?? 0,
    cachedAudioInputTokens: row.cached_audio_input_tokens ?? 0,
    audioOutputTokens: row.audio_output_tokens ?? 0,
    webSearchRequests: row.web_search_requests ?? 0,
    inputCharacters: row.input_characters ?? 0,
  };
  // Audio without a price of its own is shown apart at its text counterpart's price (input, cache
  // read, output): the same charge, split.
  const shown: AppliedPrices = {
    ...prices,
    inputAudio: prices.inputAudio ?? prices.input,
    cacheReadAudio: prices.cacheReadAudio ?? prices.cacheRead,
    outputAudio: prices.outputAudio ?? prices.output,
  };
  const costs = componentCosts(usage, shown);
  const part = (tokens: number, key: TokenKey, fallback: boolean): UsageComponent => ({
    tokens,
    pricePerMillion: (shown[key] ?? 0) / NANOS_PER_MILLION_TO_CREDITS,
    costCredits: costs[key] / NANOS_PER_MILLION_TO_CREDITS,
    fallback,
  });
  const fellBack = (name: AppliedPrices['fallback'][number]): boolean => prices.fallback.includes(name);
  const uncached = Math.max(
    0,
    usage.inputTokens - usage.cachedTokens - usage.cacheWrite5mTokens - usage.cacheWrite1hTokens,
  );
  const audio = Math.min(usage.audioInputTokens, uncached);
  const cachedAudio = Math.min(usage.cachedAudioInputTokens, usage.cachedTokens);
  const audioOutput = Math.min(usage.audioOutputTokens, usage.outputTokens);
  return {
    uncachedInput: part(uncached - audio, 'input', false),
    audioInput: part(audio, 'inputAudio', prices.inputAudio === undefined),
    cacheRead: part(usage.cachedTokens - cachedAudio, 'cacheRead', fellBack('cache_read')),
    cacheReadAudio: part(cachedAudio, 'cacheReadAudio', prices.cacheReadAudio === undefined),
    cacheWrite5m: part(usage.cacheWrite5mTokens, 'cacheWrite5m', fellBack('cache_write_5m')),
    cacheWrite1h: part(usage.cacheWrite1hTokens, 'cacheWrite1h', fellBack('cache_write_1h')),
    output: part(usage.outputTokens - audioOutput, 'output', false),
    audioOutput: part(audioOutput, 'outputAudio', prices.outputAudio === undefined),
    reasoningTokens: row.reasoning_tokens ?? 0,
    priceTier: prices.tier,
    fees: feeComponents(usage, prices, costs),
  };
}

type TokenKey =
  | 'input'
  | 'inputAudio'
  | 'cacheRead'
  | 'cacheReadAudio'
  | 'cacheWrite5m'
  | 'cacheWrite1h'
  | 'output'
  | 'outputAudio';

const FEES = [
  ['web_search_requests', 'webSearchRequests'],
  ['requests', 'requests'],
  ['input_characters', 'inputCharacters'],
] as const;

type FeeKey = (typeof FEES)[number][1];

/** The fees the model sets, and the counters reported without one (shown charged nothing). */
function feeComponents(
  usage: { readonly webSearchRequests: number; readonly inputCharacters: number },
  prices: AppliedPrices,
  costs: ReturnType<typeof componentCosts>,
): FeeComponent[] {
  const counts: Record<FeeKey, number> = { ...usage, requests: 1 };
  return FEES.filter(
    ([, key]) => prices.fees?.[key] !== undefined || (key !== 'requests' && counts[key] > 0),
  ).map(([counter, key]) => ({
    counter,
    count: counts[key],
    pricePerThousand: (prices.fees?.[key] ?? 0) / NANOS_PER_CREDIT,
    costCredits: costs[key] / NANOS_PER_CREDIT,
  }));
}
