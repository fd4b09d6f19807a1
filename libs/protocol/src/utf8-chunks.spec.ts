import { describe, expect, it } from '@jest/globals';
import { Utf8Chunks } from './utf8-chunks.js';

/** What a streaming TextDecoder makes of the same chunks (the decoder it replaced). */
function viaTextDecoder(chunks: readonly Uint8Array[]): string {
  const decoder = new TextDecoder();
  let text = '';
  for (const chunk of chunks) text += decoder.decode(chunk, { stream: true });
  return text + decoder.decode();
}

function viaUtf8Chunks(chunks: readonly Uint8Array[]): string {
  const decoder = new Utf8Chunks();
  let text = '';
  for (const chunk of chunks) text += decoder.decode(chunk);
  return text + decoder.end();
}

/** A seeded generator (mulberry32): the same cases on every run. */
function random(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Cuts bytes at random places, some chunks empty, as plain Uint8Arrays or Buffers. */
function cut(bytes: Uint8Array, next: () => number): Uint8Array[] {
  const chunks: Uint8Array[] = [];
  let at = 0;
  while (at < bytes.length) {
    const size = Math.floor(next() * 6);
    const piece = bytes.subarray(at, at + size);
    chunks.push(next() < 0.5 ? piece : Buffer.from(piece));
    at += size;
  }
  return chunks;
}

const PIECES = ['a', 'data: ', '\n', 'é', '€', '𝄞', '\uFEFF', '日本', '{"x":"y"}'];
/** Malformed and edge bytes: lone continuations, cut sequences, overlongs, surrogates, invalid leads. */
const BAD = [
  [0x80],
  [0xbf],
  [0xc0],
  [0xc1, 0x80],
  [0xe0, 0x80],
  [0xed, 0xa0, 0x80],
  [0xf0, 0x90],
  [0xf4, 0x90, 0x80, 0x80],
  [0xf5],
  [0xff],
  [0xe2, 0x82],
];

describe('Utf8Chunks', () => {
  it('decodes as a streaming TextDecoder does, however the bytes are cut (seeded random streams)', () => {
    const next = random(7);
    for (let round = 0; round < 3000; round++) {
      // An SSE stream opens with a field name. Node's TextDecoder has one quirk the WHATWG decoder
      // (and Utf8Chunks) has not: when its first chunk decoded to nothing, it also drops a U+FEFF
      // right after the stream's first character. An ASCII opening keeps the comparison to the rest.
      const parts: number[] = [...Buffer.from('data: ')];
      const count = 1 + Math.floor(next() * 12);
      for (let i = 0; i < count; i++) {
        if (next() < 0.25) parts.push(...BAD[Math.floor(next() * BAD.length)]!);
        else parts.push(...Buffer.from(PIECES[Math.floor(next() * PIECES.length)]!));
      }
      const bytes = Uint8Array.from(parts);
      const chunks = cut(bytes, next);
      expect(viaUtf8Chunks(chunks)).toBe(viaTextDecoder(chunks));
    }
  });

  it('drops a BOM only at the start of the stream, even when it is cut', () => {
    const bom = Buffer.from('\uFEFFhi\uFEFF');
    expect(viaUtf8Chunks([bom.subarray(0, 1), bom.subarray(1, 2), bom.subarray(2)])).toBe('hi\uFEFF');
    const late = Buffer.from('é\uFEFFa');
    expect(viaUtf8Chunks([late.subarray(0, 1), late.subarray(1)])).toBe('é\uFEFFa');
  });

  it('holds a cut character for the next chunk, and ends a stream cut inside one with U+FFFD', () => {
    const d = new Utf8Chunks();
    const euro = Buffer.from('€');
    expect(d.decode(euro.subarray(0, 2))).toBe('');
    expect(d.decode(euro.subarray(2))).toBe('€');
    expect(d.decode(euro.subarray(0, 1))).toBe('');
    expect(d.end()).toBe('\uFFFD');
  });
});
