import { describe, expect, it } from '@jest/globals';
import { anthropic, openai, textCounterFor } from '#libs/providers';
import { longestStallDuring, unbrokenWord } from '#libs/testing';
import { cutStreamUsage } from './cut-usage.js';
import { OutputSampler } from './usage-estimate.js';

const TEXT = 'function add(a, b) {\n  return a + b;\n}\n// The quick brown fox jumps over the lazy dog.';

describe('cutStreamUsage', () => {
  it("counts a cut stream's output and prompt with the model family's tokenizer, not chars / 4", async () => {
    const sampler = new OutputSampler(openai.chatWire);
    for (const piece of TEXT.match(/[\s\S]{1,7}/g)!)
      sampler.push(JSON.stringify({ choices: [{ index: 0, delta: { content: piece } }] }));
    const o200k = await textCounterFor('o200k');
    const usage = await cutStreamUsage(null, { prompt: TEXT }, sampler, ['gpt-4.1']);
    expect(usage.outputTokens).toBe(o200k(TEXT));
    expect(usage.inputTokens).toBe(o200k(TEXT));
    expect(usage.outputTokens).not.toBe(Math.ceil(TEXT.length / 4));
  });

  it('keeps the input counts the upstream already reported', async () => {
    const known = {
      inputTokens: 40,
      outputTokens: 0,
      cachedTokens: 30,
      cacheWrite5mTokens: 5,
      cacheWrite1hTokens: 0,
      reasoningTokens: 0,
    };
    const usage = await cutStreamUsage(known, {}, new OutputSampler(anthropic.messagesWire), [
      'claude-sonnet-4-5',
    ]);
    expect(usage).toEqual(known);
  });
});

describe('cutStreamUsage on text without breaks (issue 19: a 100 KB prompt held the edge 3.8 s)', () => {
  const samplerOf = (text: string): OutputSampler => {
    const sampler = new OutputSampler(openai.chatWire);
    sampler.push(JSON.stringify({ choices: [{ index: 0, delta: { content: text.slice(0, 30_000) } }] }));
    return sampler;
  };

  it('counts a cut stream whose prompt is 300 KB of one unbroken word with the event loop responsive', async () => {
    const warm = unbrokenWord(10_000, 2);
    await cutStreamUsage(null, { prompt: warm }, samplerOf(warm), ['gpt-4.1']); // the tables' first load
    for (const word of ['a'.repeat(300_000), unbrokenWord(30_000)]) {
      const { result, stallMs } = await longestStallDuring(() =>
        cutStreamUsage(null, { messages: [{ role: 'user', content: word }] }, samplerOf(word), ['gpt-4.1']),
      );
      expect(stallMs).toBeLessThan(100);
      expect(result.inputTokens).toBeGreaterThan(word.length / 10);
      expect(result.outputTokens).toBeGreaterThan(0);
    }
  }, 60_000);
});
