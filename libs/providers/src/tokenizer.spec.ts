import { describe, expect, it } from '@jest/globals';
import { textCounterFor, tokenizerFamilyOf } from './tokenizer.js';

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
