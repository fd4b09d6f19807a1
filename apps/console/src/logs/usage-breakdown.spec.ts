import { describe, expect, it } from '@jest/globals';
import { type RequestLog } from '#libs/db';
import { appliedPrices, costOf, type Pricing } from '#libs/quota';
import { usageBreakdown } from './usage-breakdown.js';

/** The columns the breakdown reads, with the charge the edge made at those prices. */
function row(
  pricing: Pricing,
  usage: {
    input: number;
    cached?: number;
    audio?: number;
    cachedAudio?: number;
    output: number;
    audioOutput?: number;
    searches?: number;
    chars?: number;
  },
): { row: RequestLog; costNanos: number } {
  const canonical = {
    inputTokens: usage.input,
    outputTokens: usage.output,
    cachedTokens: usage.cached ?? 0,
    audioInputTokens: usage.audio ?? 0,
    cachedAudioInputTokens: usage.cachedAudio ?? 0,
    audioOutputTokens: usage.audioOutput ?? 0,
    webSearchRequests: usage.searches ?? 0,
    inputCharacters: usage.chars ?? 0,
  };
  const prices = appliedPrices(pricing, usage.input);
  const stored = {
    input_tokens: usage.input,
    output_tokens: usage.output,
    cached_tokens: usage.cached ?? 0,
    cache_write_5m_tokens: 0,
    cache_write_1h_tokens: 0,
    reasoning_tokens: 0,
    audio_input_tokens: usage.audio ?? 0,
    cached_audio_input_tokens: usage.cachedAudio ?? 0,
    audio_output_tokens: usage.audioOutput ?? 0,
    web_search_requests: usage.searches ?? 0,
    input_characters: usage.chars ?? 0,
    prices,
  };
  return { row: stored as unknown as RequestLog, costNanos: costOf(canonical, prices) };
}

const sumNanos = (b: NonNullable<ReturnType<typeof usageBreakdown>>): number =>
  Math.round(
    [
      b.uncachedInput,
      b.audioInput,
      b.cacheRead,
      b.cacheReadAudio,
      b.cacheWrite5m,
      b.cacheWrite1h,
      b.output,
      b.audioOutput,
    ]
      .concat(b.fees.map((f) => ({ costCredits: f.costCredits }) as typeof b.output))
      .reduce((n, c) => n + c.costCredits, 0) * 1e9,
  );

describe('usage breakdown', () => {
  it('lists the web searches at their fee, summing to the charge', () => {
    const sonnet = {
      input_per_million: 3,
      output_per_million: 15,
      fees_per_thousand: { web_search_requests: 10 },
    };
    const { row: r, costNanos } = row(sonnet, { input: 1000, output: 500, searches: 2 });
    const b = usageBreakdown(r)!;
    expect(b.fees).toEqual([
      { counter: 'web_search_requests', count: 2, pricePerThousand: 10, costCredits: 0.02 },
    ]);
    expect(sumNanos(b)).toBe(costNanos);
    expect(costNanos).toBe(30_500_000);
  });

  it('shows reported searches of a model without a fee as charged nothing', () => {
    const { row: r } = row(
      { input_per_million: 1, output_per_million: 1 },
      { input: 10, output: 1, searches: 3 },
    );
    expect(usageBreakdown(r)!.fees).toEqual([
      { counter: 'web_search_requests', count: 3, pricePerThousand: 0, costCredits: 0 },
    ]);
  });

  it('lists the billed characters at their fee, summing to the charge', () => {
    const textEmbedding = {
      input_per_million: 0,
      output_per_million: 0,
      fees_per_thousand: { input_characters: 0.000025 },
    };
    const { row: r, costNanos } = row(textEmbedding, { input: 300, output: 0, chars: 1234 });
    const b = usageBreakdown(r)!;
    expect(b.fees).toEqual([
      { counter: 'input_characters', count: 1234, pricePerThousand: 0.000025, costCredits: 0.00003085 },
    ]);
    expect(b.uncachedInput).toMatchObject({ tokens: 300, costCredits: 0 });
    expect(sumNanos(b)).toBe(costNanos);
    expect(costNanos).toBe(30_850);
  });

  it('shows billed characters of a model without the fee as charged nothing, and none when none', () => {
    const tokens = { input_per_million: 0.1, output_per_million: 0 };
    expect(usageBreakdown(row(tokens, { input: 300, output: 0, chars: 1234 }).row)!.fees).toEqual([
      { counter: 'input_characters', count: 1234, pricePerThousand: 0, costCredits: 0 },
    ]);
    expect(usageBreakdown(row(tokens, { input: 300, output: 0 }).row)!.fees).toEqual([]);
  });

  it('splits the uncached audio from the text, at its price or marked at the input price', () => {
    const flash = { input_per_million: 0.3, output_per_million: 2.5, cache_read_per_million: 0.03 };
    const usage = { input: 10_000, cached: 1000, audio: 3200, output: 500 };
    const priced = row({ ...flash, input_audio_per_million: 1 }, usage);
    const b = usageBreakdown(priced.row)!;
    expect(b.uncachedInput).toMatchObject({ tokens: 5800, pricePerMillion: 0.3 });
    expect(b.audioInput).toEqual({ tokens: 3200, pricePerMillion: 1, costCredits: 0.0032, fallback: false });
    expect(sumNanos(b)).toBe(priced.costNanos);
    const asText = row(flash, usage);
    const t = usageBreakdown(asText.row)!;
    expect(t.audioInput).toMatchObject({ tokens: 3200, pricePerMillion: 0.3, fallback: true });
    expect(t.fees).toEqual([]);
    expect(sumNanos(t)).toBe(asText.costNanos);
  });

  it('splits the audio output and the cached audio apart, at their prices or marked at the text ones', () => {
    /** gpt-4o-audio-preview: text 2.5 / 10, audio output 80 (issue 31: the audited request). */
    const gpt4oAudio = { input_per_million: 2.5, output_per_million: 10, output_audio_per_million: 80 };
    const audited = row(gpt4oAudio, { input: 17_300, output: 1000, audioOutput: 1000 });
    const b = usageBreakdown(audited.row)!;
    expect(b.output).toMatchObject({ tokens: 0, pricePerMillion: 10 });
    expect(b.audioOutput).toEqual({ tokens: 1000, pricePerMillion: 80, costCredits: 0.08, fallback: false });
    expect(sumNanos(b)).toBe(audited.costNanos);
    expect(audited.costNanos).toBe(123_250_000);
    const { output_audio_per_million: _audio, ...textOnly } = gpt4oAudio;
    const asText = usageBreakdown(row(textOnly, { input: 17_300, output: 1000, audioOutput: 1000 }).row)!;
    expect(asText.audioOutput).toMatchObject({ tokens: 1000, pricePerMillion: 10, fallback: true });

    const flash = {
      input_per_million: 0.3,
      output_per_million: 2.5,
      cache_read_per_million: 0.03,
      cache_read_audio_per_million: 0.1,
    };
    const cached = row(flash, { input: 10_000, cached: 1500, cachedAudio: 500, output: 500 });
    const c = usageBreakdown(cached.row)!;
    expect(c.cacheRead).toMatchObject({ tokens: 1000, pricePerMillion: 0.03 });
    expect(c.cacheReadAudio).toEqual({
      tokens: 500,
      pricePerMillion: 0.1,
      costCredits: 0.00005,
      fallback: false,
    });
    expect(sumNanos(c)).toBe(cached.costNanos);
  });
});
