import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from '@jest/globals';
import { O200K_TOKEN_SPLIT_REGEX, CL100K_TOKEN_SPLIT_REGEX } from 'gpt-tokenizer/encodingParams/constants';
import { unbrokenWord } from '#libs/testing';
import { MAX_PIECE, SLICE, slicesOf } from './token-slices.js';
import { textCounterFor, type TokenizerFamily } from './tokenizer.js';

const AGENTS_DIR = new URL('../../../test/fixtures/agents/', import.meta.url);

/** Every string of every recorded agent request, and each request whole as JSON (compact and indented). */
function recordedTexts(): string[] {
  const out: string[] = [];
  const walk = (v: unknown): void => {
    if (typeof v === 'string') out.push(v);
    else if (Array.isArray(v)) v.forEach(walk);
    else if (typeof v === 'object' && v !== null) Object.values(v).forEach(walk);
  };
  for (const name of readdirSync(AGENTS_DIR).filter((n) => n.endsWith('.json'))) {
    const recorded = JSON.parse(readFileSync(new URL(name, AGENTS_DIR), 'utf8')) as unknown;
    walk(recorded);
    out.push(JSON.stringify(recorded), JSON.stringify(recorded, null, 2));
  }
  return out;
}

const ENCODINGS = [
  ['o200k', O200K_TOKEN_SPLIT_REGEX, 'gpt-tokenizer/encoding/o200k_base'],
  ['cl100k', CL100K_TOKEN_SPLIT_REGEX, 'gpt-tokenizer/encoding/cl100k_base'],
] as const;
const PLAIN = { disallowedSpecial: new Set<string>() };

const piecesOf = (text: string, split: RegExp) => [...slicesOf(text, split)];

describe('slicesOf', () => {
  it.each(ENCODINGS)(
    '%s: counts every recorded agent request exactly as the encoding counts it whole',
    async (family, _split, module) => {
      const whole = (await import(module)) as { countTokens: (t: string, o: typeof PLAIN) => number };
      const count = await textCounterFor(family as TokenizerFamily);
      const texts = recordedTexts();
      const long = texts.filter((t) => t.length > SLICE);
      expect(long.length).toBeGreaterThan(10); // the case that cuts is there
      const differing = texts.filter((t) => count(t) !== whole.countTokens(t, PLAIN));
      expect(differing).toEqual([]);
    },
  );

  it('covers the text exactly, in order', () => {
    const prose = readFileSync(new URL('../../../docs/architecture.md', import.meta.url), 'utf8');
    for (const text of [prose, `${prose}${'a'.repeat(5000)} ${'='.repeat(3000)}\n${' '.repeat(4000)}x`, '']) {
      for (const [, split] of ENCODINGS) {
        const slices = piecesOf(text, split);
        expect(slices.map((s) => text.slice(s.start, s.end)).join('')).toBe(text);
        expect(slices.every((s, i) => s.end > s.start && s.start === (slices[i - 1]?.end ?? 0))).toBe(true);
      }
    }
  });

  it('cuts a run without a break into parts of MAX_PIECE, and nothing is longer than a slice and a piece', () => {
    for (const text of [
      'a'.repeat(300_000),
      unbrokenWord(300_000),
      ' '.repeat(300_000),
      '-'.repeat(300_000),
    ]) {
      for (const [, split] of ENCODINGS) {
        const lengths = piecesOf(text, split).map((s) => s.end - s.start);
        expect(Math.max(...lengths)).toBeLessThanOrEqual(SLICE + MAX_PIECE);
        expect(lengths.filter((n) => n === MAX_PIECE).length).toBeGreaterThan(1000);
      }
    }
  });

  it('never cuts between the halves of a surrogate pair', () => {
    // The leading space joins the run's piece, so a cut every MAX_PIECE would fall inside a pair.
    const text = ` ${'😀'.repeat(100_000)}`;
    for (const [, split] of ENCODINGS) {
      const slices = piecesOf(text, split);
      expect(slices.length).toBeGreaterThan(100);
      const halves = slices.filter(
        (s) => text.charCodeAt(s.start) === 0xde00 || text.charCodeAt(s.end - 1) === 0xd83d,
      );
      expect(halves).toEqual([]);
    }
  });
});
