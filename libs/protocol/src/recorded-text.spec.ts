import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { recordableList, recordableText } from './recorded-text.js';

describe('recordableText', () => {
  it.each([
    ['plain text as it is', 'dropped tools[0].x', 'dropped tools[0].x'],
    ['a NUL escaped', 'a\u0000b', 'a\\u0000b'],
    ['C1 controls and DEL escaped', '\u007f\u0085', '\\u007f\\u0085'],
    ['a lone surrogate escaped', 'a\ud800b', 'a\\ud800b'],
    ['a pair kept', 'a😀b', 'a😀b'],
    ['other Unicode kept', 'café\u2028', 'café\u2028'],
  ])('keeps %s', (_case, text, recorded) => {
    expect(recordableText(text, 100)).toBe(recorded);
  });

  it('cuts to the length, ending in an ellipsis, never inside a surrogate pair', () => {
    expect(recordableText('k'.repeat(301), 200)).toBe(`${'k'.repeat(199)}…`);
    expect(recordableText(`${'k'.repeat(198)}😀tail`, 200)).toBe(`${'k'.repeat(198)}…`);
  });

  it('gives text Postgres and a header can hold, of bounded length, whatever the input', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), fc.integer({ min: 2, max: 300 }), (text, max) => {
        const out = recordableText(text, max);
        expect(out.length).toBeLessThanOrEqual(max);
        // eslint-disable-next-line no-control-regex -- the point of the check
        expect(out).not.toMatch(/[\u0000-\u001f\u007f-\u009f]/);
        expect(out).toBe(Buffer.from(out, 'utf8').toString('utf8')); // no lone surrogate left
      }),
    );
  });
});

describe('recordableList', () => {
  it('keeps a short list and counts the rest of a long one', () => {
    expect(recordableList(['a', 'b'], 3, 10)).toEqual(['a', 'b']);
    expect(recordableList(['a', 'b', 'c', 'd'], 3, 10)).toEqual(['a', 'b', 'and 2 more']);
  });

  it('records what is not text as text', () => {
    expect(recordableList([1, null], 3, 10)).toEqual(['1', 'null']);
  });
});
