import { describe, expect, it } from '@jest/globals';
import { MAX_JSON_DEPTH, nestsDeeperThan, parseJsonBody } from './json-body.js';

const bytes = (s: string): Buffer => Buffer.from(s, 'utf8');
const nested = (depth: number): string => '['.repeat(depth) + ']'.repeat(depth);

describe('nestsDeeperThan', () => {
  it('counts objects and arrays together', () => {
    expect(nestsDeeperThan(bytes('{"a":[{"b":[]}]}'), 4)).toBe(false);
    expect(nestsDeeperThan(bytes('{"a":[{"b":[]}]}'), 3)).toBe(true);
  });

  it('measures depth, not the number of brackets', () => {
    const wide = `[${Array.from({ length: 1000 }, () => '{"a":[1]}').join(',')}]`;
    expect(nestsDeeperThan(bytes(wide), 3)).toBe(false);
  });

  it('ignores brackets inside strings, escaped quotes included', () => {
    expect(nestsDeeperThan(bytes(`{"a":"${'[{'.repeat(500)}"}`), 1)).toBe(false);
    expect(nestsDeeperThan(bytes(`{"a":"\\"[[[[\\\\"}`), 1)).toBe(false);
    expect(nestsDeeperThan(bytes(`{"a":"\\\\",  "b":[[]]}`), 2)).toBe(true);
  });

  it('reads UTF-8 text as it is', () => {
    expect(nestsDeeperThan(bytes('{"é😀":["ü"]}'), 2)).toBe(false);
  });
});

describe('parseJsonBody', () => {
  it('parses a body within the depth', () => {
    expect(parseJsonBody(bytes(nested(MAX_JSON_DEPTH)))).toMatchObject({ ok: true });
    expect(parseJsonBody(bytes('{"model":"m"}'))).toEqual({ ok: true, value: { model: 'm' } });
  });

  it('refuses a deeper body before parsing it', () => {
    expect(parseJsonBody(bytes(nested(MAX_JSON_DEPTH + 1)))).toEqual({ ok: false, fault: 'too_deep' });
    expect(parseJsonBody(bytes(`{"a":${'['.repeat(10_000)}`))).toEqual({ ok: false, fault: 'too_deep' });
  });

  it('names empty and invalid bodies', () => {
    expect(parseJsonBody(Buffer.alloc(0))).toEqual({ ok: false, fault: 'empty' });
    expect(parseJsonBody(bytes('{bad'))).toEqual({ ok: false, fault: 'invalid' });
  });
});
