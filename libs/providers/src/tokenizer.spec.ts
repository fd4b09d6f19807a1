import { describe, expect, it } from '@jest/globals';
import { longestStallDuring, unbrokenWord } from '#libs/testing';
import { COUNT_LIMIT_CHARS, textCounterFor, tokenizerFamilyOf, tokenizerFor } from './tokenizer.js';

describe('tokenizerFamilyOf', () => {
  it.each([
    [['gpt-4o-mini'], 'o200k'],
    [['gpt-4.1'], 'o200k'],
    [['gpt-5-codex'], 'o200k'],
    [['o3-mini'], 'o200k'],
    [['gpt-4'], 'cl100k'],
    [['gpt-4-turbo-2024-04-09'], 'cl100k'],
    [['gpt-3.5-turbo'], 'cl100k'],
    [['claude-sonnet-4-5'], 'claude'],
    // A gateway alias says nothing; the upstream name routed to through a proxy does.
    [['my-model', 'anthropic/claude-opus-4-1'], 'claude'],
    [['llama-3.3-70b-versatile'], 'o200k'],
  ] as const)('%j -> %s', (names, family) => {
    expect(tokenizerFamilyOf(names)).toBe(family);
  });
});

describe('textCounterFor', () => {
  it('counts with the family encoding, o200k for Claude', async () => {
    // tiktoken's own examples: "tiktoken is great!" is 6 tokens in both encodings.
    expect((await textCounterFor('o200k'))('tiktoken is great!')).toBe(6);
    expect((await textCounterFor('cl100k'))('tiktoken is great!')).toBe(6);
    expect((await textCounterFor('claude'))('Hello, Claude')).toBe(3);
  });

  it('counts special-token strings as plain text instead of throwing', async () => {
    const o = await textCounterFor('o200k');
    expect(o('<|endoftext|>')).toBeGreaterThan(1);
    expect(o('')).toBe(0);
  });
});

describe('counting text without breaks (issue 19: 300 KB of `a` held an edge 33-40 s)', () => {
  const FAMILIES = ['o200k', 'cl100k'] as const;

  it.each(FAMILIES)(
    '%s: counts 300 KB of one unbroken word with the event loop responsive',
    async (family) => {
      const { countAll } = await tokenizerFor(family);
      // The tables' first load, and the collections of its garbage that follow, are not measured.
      await countAll([unbrokenWord(10_000, 2)]);
      // The probe's 300 KB of `a`, and letters none of which the merge cache holds (30 KB: 1-3 s
      // of counting in this test runner, which is slower than the edge; that it yields is checked).
      for (const word of ['a'.repeat(300_000), unbrokenWord(30_000)]) {
        const { result, stallMs } = await longestStallDuring(() => countAll([word]));
        expect(stallMs).toBeLessThan(100);
        // About what the encoding gives on a short run of the same text: 8 `a` a token, ~2 letters a token.
        expect(result).toBeGreaterThan(word.length / 10);
        expect(result).toBeLessThan(word.length / 1.5);
      }
    },
    60_000,
  );

  it.each(FAMILIES)('%s: counts a long run in time linear in its length', async (family) => {
    const count = await textCounterFor(family);
    const at = (chars: number): number => {
      const start = performance.now();
      count('b'.repeat(chars));
      return performance.now() - start;
    };
    at(10_000);
    // Before: 10 KB 79-105 ms, 100 KB 11.5-12.4 s (quadratic). A run of one letter hits the
    // merge cache after its first part, so this is the splitting alone: well under a second.
    expect(at(300_000)).toBeLessThan(1000);
    expect(count('b'.repeat(300_000))).toBe(count('b'.repeat(30_000)) * 10);
  });

  it('counts the same as `count` below the limit, and extrapolates past it', async () => {
    const { count, countAll } = await tokenizerFor('o200k');
    const sentence = 'The quick brown fox jumps over the lazy dog. ';
    const texts = ['Hello, world.', sentence.repeat(1000), ''];
    expect(await countAll(texts)).toBe(texts.reduce((n, t) => n + count(t), 0));
    // Twice the limit: the first half counted, the second at the same ratio.
    const big = sentence.repeat(Math.ceil((2 * COUNT_LIMIT_CHARS) / sentence.length));
    const half = sentence.repeat(Math.ceil(COUNT_LIMIT_CHARS / sentence.length));
    const estimate = await countAll([big]);
    expect(Math.abs(estimate - 2 * count(half)) / estimate).toBeLessThan(0.01);
  });
});
