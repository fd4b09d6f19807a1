import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import * as anthropic from './anthropic/usage.js';
import * as openai from './openai/usage.js';
import { type ChatUsage } from './src/chat.js';
import { type CanonicalUsage, usageOf } from './src/types.js';

/**
 * Usage golden cases: each vendor's documented usage object (cache and reasoning fields included)
 * -> the canonical record, and -> the hub -> every client format's usage. Then properties: any
 * usage survives every conversion with each part intact, and no part is ever negative.
 */

/** Anthropic's prompt-caching guide, mixed TTLs (input excludes reads and writes). */
const ANTHROPIC_DOC = {
  input_tokens: 2048,
  cache_read_input_tokens: 1800,
  cache_creation_input_tokens: 248,
  output_tokens: 503,
  cache_creation: { ephemeral_5m_input_tokens: 148, ephemeral_1h_input_tokens: 100 },
};
/** OpenAI's prompt-caching guide (prompt_tokens includes cached_tokens), plus a reasoning count. */
const OPENAI_DOC = {
  prompt_tokens: 2006,
  completion_tokens: 300,
  total_tokens: 2306,
  prompt_tokens_details: { cached_tokens: 1920, audio_tokens: 0 },
  completion_tokens_details: { reasoning_tokens: 128, audio_tokens: 0 },
};
/** OpenAI's reasoning guide, Responses usage. */
const RESPONSES_DOC = {
  input_tokens: 75,
  input_tokens_details: { cached_tokens: 0 },
  output_tokens: 1186,
  output_tokens_details: { reasoning_tokens: 1024 },
  total_tokens: 1261,
};

describe('usage golden cases: provider format -> canonical record', () => {
  it('reads Anthropic: the three input parts, the writes by TTL', () => {
    expect(anthropic.canonicalUsageOf(ANTHROPIC_DOC)).toEqual(
      usageOf({ uncached: 2048, cacheRead: 1800, cacheWrite5m: 148, cacheWrite1h: 100, output: 503 }),
    );
    expect(anthropic.canonicalUsageOf(ANTHROPIC_DOC)?.inputTokens).toBe(4096);
    // Before the TTL split, every write was a 5-minute one.
    const { cache_creation: _split, ...unsplit } = ANTHROPIC_DOC;
    expect(anthropic.canonicalUsageOf(unsplit)?.cacheWrite5mTokens).toBe(248);
  });

  it('reads OpenAI chat and Responses: cached and reasoning parts inside the totals', () => {
    expect(openai.usageFromOpenAI(OPENAI_DOC)).toEqual(
      usageOf({ uncached: 86, cacheRead: 1920, output: 300, reasoning: 128 }),
    );
    expect(openai.usageFromResponsesUsage(RESPONSES_DOC)).toEqual(
      usageOf({ uncached: 75, output: 1186, reasoning: 1024 }),
    );
    expect(
      openai.usageFromOpenAI({
        prompt_tokens: 100,
        prompt_tokens_details: { cached_tokens: 60, cache_write_tokens: 30 },
      }),
    ).toEqual(usageOf({ uncached: 10, cacheRead: 60, cacheWrite5m: 30 }));
  });
});

describe('usage golden cases: provider -> hub -> every client format', () => {
  it('gives an Anthropic provider answer to each client in its convention', () => {
    const hub = anthropic.hubUsageOf(ANTHROPIC_DOC);
    expect(openai.clientChatUsage(hub)).toEqual({
      prompt_tokens: 4096,
      completion_tokens: 503,
      total_tokens: 4599,
      prompt_tokens_details: { cached_tokens: 1800, cache_write_tokens: 248 },
    });
    expect(openai.responsesUsage(hub)).toEqual({
      input_tokens: 4096,
      input_tokens_details: { cached_tokens: 1800, cache_write_tokens: 248 },
      output_tokens: 503,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: 4599,
    });
    expect(anthropic.anthropicUsageOf(hub)).toEqual(ANTHROPIC_DOC);
  });

  it('gives an OpenAI provider answer to a Messages client without the cached part in input_tokens', () => {
    const hub = openai.hubUsageOfOpenAI(OPENAI_DOC)!;
    expect(anthropic.anthropicUsageOf(hub)).toEqual({
      input_tokens: 86,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 1920,
      cache_creation: { ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: 0 },
      output_tokens: 300,
    });
    expect(openai.clientChatUsage(hub)).toEqual(OPENAI_DOC);
    expect(openai.responsesUsage(hub)).toMatchObject({
      input_tokens: 2006,
      input_tokens_details: { cached_tokens: 1920 },
      output_tokens_details: { reasoning_tokens: 128 },
    });
  });
});

const parts = fc.record({
  uncached: fc.nat(1_000_000),
  cacheRead: fc.nat(1_000_000),
  cacheWrite5m: fc.nat(1_000_000),
  cacheWrite1h: fc.nat(1_000_000),
  output: fc.nat(1_000_000),
  reasoning: fc.nat(1_000_000),
});

/** The canonical usage as OpenAI formats carry it: one write field (5-minute). */
const oneWriteTtl = (u: CanonicalUsage): CanonicalUsage => ({
  ...u,
  cacheWrite5mTokens: u.cacheWrite5mTokens + u.cacheWrite1hTokens,
  cacheWrite1hTokens: 0,
});

describe('usage conversions (fast-check)', () => {
  it('keep every part through Anthropic -> hub -> each client format and back', () => {
    fc.assert(
      fc.property(parts, (p) => {
        const canonical = usageOf(p);
        const hub = anthropic.hubUsageOf(anthropic.anthropicUsageOf(hubOf(canonical)));
        expect(anthropic.canonicalOfHub(hub)).toEqual({ ...canonical, reasoningTokens: 0 });
        const viaMessages = anthropic.canonicalUsageOf(anthropic.anthropicUsageOf(hub));
        expect(viaMessages).toEqual({ ...canonical, reasoningTokens: 0 });
        const viaChat = openai.usageFromOpenAI(openai.clientChatUsage(hubOf(canonical)));
        expect(viaChat).toEqual(oneWriteTtl(canonical));
        const viaResponses = openai.usageFromResponsesUsage(openai.responsesUsage(hubOf(canonical)));
        expect(viaResponses).toEqual(oneWriteTtl(canonical));
      }),
    );
  });

  it('never yields a negative part, whatever a vendor reports', () => {
    const n = fc.oneof(fc.integer({ min: -5, max: 1_000_000 }), fc.constant(Number.NaN));
    fc.assert(
      fc.property(n, n, n, n, (prompt, cached, writes, completion) => {
        const u = openai.usageFromOpenAI({
          prompt_tokens: prompt,
          completion_tokens: completion,
          prompt_tokens_details: { cached_tokens: cached, cache_write_tokens: writes },
        });
        if (u === null) return;
        const uncached = u.inputTokens - u.cachedTokens - u.cacheWrite5mTokens - u.cacheWrite1hTokens;
        for (const v of [uncached, u.cachedTokens, u.cacheWrite5mTokens, u.outputTokens]) {
          expect(v).toBeGreaterThanOrEqual(0);
        }
      }),
    );
  });
});

/** The hub usage of a canonical one (what a provider translator produces). */
function hubOf(u: CanonicalUsage): ChatUsage {
  return {
    prompt_tokens: u.inputTokens,
    completion_tokens: u.outputTokens,
    total_tokens: u.inputTokens + u.outputTokens,
    prompt_tokens_details: {
      cached_tokens: u.cachedTokens,
      cache_write_5m_tokens: u.cacheWrite5mTokens,
      cache_write_1h_tokens: u.cacheWrite1hTokens,
    },
    completion_tokens_details: { reasoning_tokens: u.reasoningTokens },
  };
}
