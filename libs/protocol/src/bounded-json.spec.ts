import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { boundedJson, CONTENT_MAX_BYTES, TRUNCATED_MARK } from './bounded-json.js';

const bytes = (s: string): number => Buffer.byteLength(s);
const user = (content: string) => ({ role: 'user', parts: [{ type: 'text', content }] });

describe('boundedJson', () => {
  it('a value within the bound is its JSON, unchanged', () => {
    const v = [user('hello'), user('x'.repeat(5_000))];
    expect(boundedJson(v)).toBe(JSON.stringify(v));
    expect(CONTENT_MAX_BYTES).toBe(16_384);
  });

  it('over the bound: the long string is cut and marked, short ones and the structure stay, still JSON', () => {
    const v = [user('system-ish short'), user('a'.repeat(100_000)), user('tail')];
    const out = boundedJson(v, 1_000);
    expect(bytes(out)).toBeLessThanOrEqual(1_000);
    const parsed = JSON.parse(out) as Array<{ parts: Array<{ content: string }> }>;
    expect(parsed.map((m) => m.parts[0]!.content)).toEqual([
      'system-ish short',
      expect.stringMatching(/^a+…\[truncated\]$/),
      'tail',
    ]);
    // The cut string takes what the others leave: near the bound, not far below it.
    expect(bytes(out)).toBeGreaterThan(900);
  });

  it('two long strings share the room equally', () => {
    const out = JSON.parse(
      boundedJson([user('a'.repeat(50_000)), user('b'.repeat(80_000))], 2_000),
    ) as Array<{
      parts: Array<{ content: string }>;
    }>;
    const [a, b] = out.map((m) => m.parts[0]!.content.length);
    expect(a).toBe(b);
  });

  it('multi-byte text is cut on a character boundary and counted in bytes', () => {
    const out = boundedJson([user('日本語'.repeat(10_000)), user('🙂'.repeat(10_000))], 4_096);
    expect(bytes(out)).toBeLessThanOrEqual(4_096);
    const parsed = JSON.parse(out) as Array<{ parts: Array<{ content: string }> }>;
    const emoji = parsed[1]!.parts[0]!.content.replace(TRUNCATED_MARK, '');
    expect(emoji).toMatch(/^(🙂)+$/u);
  });

  it('escape-heavy strings (quotes, newlines) stay within the bound', () => {
    const out = boundedJson([user('"\n'.repeat(20_000)), user('ok')], 2_000);
    expect(bytes(out)).toBeLessThanOrEqual(2_000);
    expect(JSON.parse(out)).toHaveLength(2);
  });

  it('a structure larger than the bound is cut as text, ending with the mark', () => {
    const many = Array.from({ length: 5_000 }, () => user('hi'));
    const out = boundedJson(many, 1_000);
    expect(bytes(out)).toBeLessThanOrEqual(1_000);
    expect(out.endsWith(TRUNCATED_MARK)).toBe(true);
    expect(out.startsWith('[{"role":"user"')).toBe(true);
  });

  it('never exceeds the bound, whatever the value', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.integer({ min: 16, max: 600 }), (value, max) => {
        expect(bytes(boundedJson(value, max))).toBeLessThanOrEqual(max);
      }),
      { numRuns: 500 },
    );
  });
});
