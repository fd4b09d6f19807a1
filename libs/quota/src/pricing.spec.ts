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

describe('fees and audio prices', () => {
  /** Claude Sonnet 4.5 as Anthropic lists it: $3 / $15 per million, web search $10 per 1,000. */
  const sonnet = {
    input_per_million: 3,
    output_per_million: 15,
    fees_per_thousand: { web_search_requests: 10 },
  };
  /** Gemini 2.5 Flash as Google lists it: text $0.30, audio $1.00, cache reads $0.03, output $2.50. */
  const flash = {
    input_per_million: 0.3,
    output_per_million: 2.5,
    cache_read_per_million: 0.03,
    input_audio_per_million: 1,
  };

  it('charges each web search its fee on top of the tokens', () => {
    // 1,000 x 3,000 + 500 x 15,000 nanocredits of tokens, and 2 searches x $0.01 (1e7 each).
    const usage = { inputTokens: 1000, outputTokens: 500, webSearchRequests: 2 };
    expect(costNanos(usage, sonnet)).toBe(3_000_000 + 7_500_000 + 20_000_000);
    expect(costNanos({ ...usage, webSearchRequests: 0 }, sonnet)).toBe(10_500_000);
  });

  it('charges the uncached prompt audio at the audio price, the rest as before', () => {
    // 10,000 prompt tokens: 1,000 cached (text), 3,200 audio read fresh, 5,800 text.
    const usage = { inputTokens: 10_000, cachedTokens: 1000, audioInputTokens: 3200, outputTokens: 500 };
    const text = 5800 * 300 + 1000 * 30 + 500 * 2500;
    expect(costNanos(usage, flash)).toBe(text + 3200 * 1000);
    expect(costNanos(usage, flash)).toBe(6_220_000);
  });

  it('charges a request fee once per request', () => {
    const sonar = { input_per_million: 1, output_per_million: 1, fees_per_thousand: { requests: 12 } };
    // 300 tokens at $1 per million, and $12 per 1,000 requests = 1.2e7 nanocredits.
    expect(costNanos({ inputTokens: 100, outputTokens: 200 }, sonar)).toBe(300_000 + 12_000_000);
  });

  it('charges audio as input and searches as nothing for a model without those prices', () => {
    const plain = { input_per_million: 0.3, output_per_million: 2.5, cache_read_per_million: 0.03 };
    const usage = { inputTokens: 10_000, cachedTokens: 1000, outputTokens: 500 };
    const counted = { ...usage, audioInputTokens: 3200, webSearchRequests: 4 };
    expect(costNanos(counted, plain)).toBe(costNanos(usage, plain));
    expect(costNanos(counted, plain)).toBe(9000 * 300 + 1000 * 30 + 500 * 2500);
    // The logged prices of such a model are the keys they always were.
    expect(Object.keys(appliedPrices(plain, 10_000)).sort()).toEqual(
      ['cacheRead', 'cacheWrite1h', 'cacheWrite5m', 'fallback', 'input', 'output', 'tier'].sort(),
    );
  });

  /** Vertex's text-embedding-005 as Google lists it: $0.000025 per 1,000 characters, tokens free. */
  const textEmbedding = {
    input_per_million: 0,
    output_per_million: 0,
    fees_per_thousand: { input_characters: 0.000025 },
  };

  it('charges the billed characters their fee, the tokens at their own price', () => {
    // 1,234 characters x 25,000 nanocredits per thousand = 30,850 nanocredits, exactly.
    const usage = { inputTokens: 300, outputTokens: 0, inputCharacters: 1234 };
    expect(costNanos(usage, textEmbedding)).toBe(30_850);
    expect(appliedPrices(textEmbedding, 300).fees).toEqual({ inputCharacters: 25_000 });
    expect(costNanos({ ...usage, inputCharacters: 0 }, textEmbedding)).toBe(0);
  });

  it('rounds the characters and the tokens together, once', () => {
    // 3 characters x 25.5 nanocredits = 76.5, 1 token at 0.5: 77 in all (78 if each were rounded).
    const pricing = {
      input_per_million: 0.0005,
      output_per_million: 0,
      fees_per_thousand: { input_characters: 0.0000255 },
    };
    expect(costNanos({ inputTokens: 1, outputTokens: 0, inputCharacters: 3 }, pricing)).toBe(77);
    // 1 character alone: 25.5, rounded half up.
    expect(costNanos({ inputTokens: 0, outputTokens: 0, inputCharacters: 1 }, pricing)).toBe(26);
  });

  it('charges characters nothing for a model without the fee, as before it was counted', () => {
    const tokens = { input_per_million: 0.1, output_per_million: 0 };
    const usage = { inputTokens: 300, outputTokens: 0 };
    expect(costNanos({ ...usage, inputCharacters: 1234 }, tokens)).toBe(costNanos(usage, tokens));
    expect(costNanos(usage, tokens)).toBe(30_000);
    expect(appliedPrices(tokens, 300)).not.toHaveProperty('fees');
  });

  it('logs the audio price and the fees in nanocredits', () => {
    expect(appliedPrices(flash, 1)).toMatchObject({ input: 3e8, inputAudio: 1e9 });
    expect(appliedPrices(sonnet, 1).fees).toEqual({ webSearchRequests: 1e10 });
  });

  it('takes the audio price of the tier the prompt reaches, fees whatever the tier', () => {
    const tiered = {
      ...flash,
      fees_per_thousand: { web_search_requests: 14 },
      tiers: [
        {
          above_input_tokens: 200_000,
          input_per_million: 0.6,
          output_per_million: 5,
          input_audio_per_million: 2,
        },
      ],
    };
    const usage = { inputTokens: 300_000, audioInputTokens: 100_000, outputTokens: 0, webSearchRequests: 1 };
    expect(costNanos(usage, tiered)).toBe(200_000 * 600 + 100_000 * 2000 + 14_000_000);
  });

  it('is the sum of tokens x prices and counts x fees, rounded once (fast-check)', () => {
    const price = fc.integer({ min: 0, max: 1_000_000 });
    const count = fc.integer({ min: 0, max: 2_000_000 });
    fc.assert(
      fc.property(
        fc.record({
          text: count,
          audio: count,
          read: count,
          output: count,
          searches: fc.nat(50),
          chars: count,
        }),
        fc.record({
          input: price,
          audio: price,
          read: price,
          output: price,
          search: price,
          request: price,
          char: price,
        }),
        (u, p) => {
          const pricing = {
            input_per_million: p.input / 1e4,
            input_audio_per_million: p.audio / 1e4,
            cache_read_per_million: p.read / 1e4,
            output_per_million: p.output / 1e4,
            fees_per_thousand: {
              web_search_requests: p.search / 1e4,
              requests: p.request / 1e4,
              input_characters: p.char / 1e4,
            },
          };
          const usage = {
            inputTokens: u.text + u.audio + u.read,
            cachedTokens: u.read,
            audioInputTokens: u.audio,
            outputTokens: u.output,
            webSearchRequests: u.searches,
            inputCharacters: u.chars,
          };
          // tokens x p / 10 nanocredits; counted x (p / 1e4) credits per thousand = counted x p x 100.
          const units =
            BigInt(u.text) * BigInt(p.input) +
            BigInt(u.audio) * BigInt(p.audio) +
            BigInt(u.read) * BigInt(p.read) +
            BigInt(u.output) * BigInt(p.output) +
            (BigInt(u.searches) * BigInt(p.search) + BigInt(u.chars) * BigInt(p.char) + BigInt(p.request)) *
              1000n;
          expect(BigInt(costNanos(usage, pricing))).toBe((units + 5n) / 10n);
        },
      ),
    );
  });
});

describe('audio output and cached audio input (issue 31, item 6)', () => {
  /**
   * gpt-4o-audio-preview as OpenAI lists it: text $2.50 in / $10.00 out (the catalog's prices),
   * audio $40 in / $80 out per million. The audit's request: 17,300 text prompt tokens (43,250,000
   * nanocredits at $2.50) and 1,000 output tokens, all audio.
   */
  const gpt4oAudio = {
    input_per_million: 2.5,
    output_per_million: 10,
    input_audio_per_million: 40,
    output_audio_per_million: 80,
  };
  const audited = { inputTokens: 17_300, outputTokens: 1000, audioOutputTokens: 1000 };

  it("charges the audio output at the audio output price: the audit's 123,250,000 nanocredits", () => {
    // 17,300 x 2,500 + 1,000 x 80,000 nanocredits (not 1,000 x 10,000: 53,250,000).
    expect(costNanos(audited, gpt4oAudio)).toBe(123_250_000);
    expect(appliedPrices(gpt4oAudio, 17_300)).toMatchObject({ output: 1e10, outputAudio: 8e10 });
  });

  it('charges the text part of the output at the output price', () => {
    // 1,000 output tokens: 250 of transcript text, 750 of audio.
    const usage = { ...audited, audioOutputTokens: 750 };
    expect(costNanos(usage, gpt4oAudio)).toBe(17_300 * 2500 + 250 * 10_000 + 750 * 80_000);
  });

  it('charges audio output as output for a model without an audio output price, as before', () => {
    const { output_audio_per_million: _audio, ...textOnly } = gpt4oAudio;
    expect(costNanos(audited, textOnly)).toBe(53_250_000);
    expect(appliedPrices(textOnly, 1)).not.toHaveProperty('outputAudio');
  });

  /** Gemini 2.5 Flash as Google lists it: audio $1.00, cached audio $0.10, cached text $0.03. */
  const flash = {
    input_per_million: 0.3,
    output_per_million: 2.5,
    cache_read_per_million: 0.03,
    input_audio_per_million: 1,
    cache_read_audio_per_million: 0.1,
  };

  it('charges the audio read from the cache at the cached audio price', () => {
    // 10,000 prompt tokens: 1,500 cached (500 of them audio), 3,500 audio read fresh, 5,000 text.
    const usage = {
      inputTokens: 10_000,
      cachedTokens: 1500,
      cachedAudioInputTokens: 500,
      audioInputTokens: 3500,
      outputTokens: 500,
    };
    const expected = 5000 * 300 + 3500 * 1000 + 1000 * 30 + 500 * 100 + 500 * 2500;
    expect(costNanos(usage, flash)).toBe(expected);
    expect(appliedPrices(flash, 1)).toMatchObject({ cacheRead: 3e7, cacheReadAudio: 1e8 });
  });

  it('charges cached audio at the cache read price for a model without a cached audio price', () => {
    const { cache_read_audio_per_million: _cached, ...noCachedAudio } = flash;
    const usage = { inputTokens: 2000, cachedTokens: 1500, cachedAudioInputTokens: 500, outputTokens: 0 };
    expect(costNanos(usage, noCachedAudio)).toBe(500 * 300 + 1500 * 30);
    expect(appliedPrices(noCachedAudio, 1)).not.toHaveProperty('cacheReadAudio');
  });

  it('is each part times its price, text and audio apart, rounded once (fast-check)', () => {
    const price = fc.integer({ min: 0, max: 1_000_000 });
    const count = fc.integer({ min: 0, max: 2_000_000 });
    fc.assert(
      fc.property(
        fc.record({ text: count, audio: count, read: count, readAudio: count, out: count, outAudio: count }),
        fc.record({ input: price, audio: price, read: price, readAudio: price, out: price, outAudio: price }),
        (u, p) => {
          const pricing = {
            input_per_million: p.input / 1e4,
            input_audio_per_million: p.audio / 1e4,
            cache_read_per_million: p.read / 1e4,
            cache_read_audio_per_million: p.readAudio / 1e4,
            output_per_million: p.out / 1e4,
            output_audio_per_million: p.outAudio / 1e4,
          };
          const usage = {
            inputTokens: u.text + u.audio + u.read + u.readAudio,
            audioInputTokens: u.audio,
            cachedTokens: u.read + u.readAudio,
            cachedAudioInputTokens: u.readAudio,
            outputTokens: u.out + u.outAudio,
            audioOutputTokens: u.outAudio,
          };
          const units =
            BigInt(u.text) * BigInt(p.input) +
            BigInt(u.audio) * BigInt(p.audio) +
            BigInt(u.read) * BigInt(p.read) +
            BigInt(u.readAudio) * BigInt(p.readAudio) +
            BigInt(u.out) * BigInt(p.out) +
            BigInt(u.outAudio) * BigInt(p.outAudio);
          expect(BigInt(costNanos(usage, pricing))).toBe((units + 5n) / 10n);
        },
      ),
    );
  });
});
