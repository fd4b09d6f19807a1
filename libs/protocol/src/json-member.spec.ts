import { describe, expect, it } from '@jest/globals';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { topLevelMember } from './json-member.js';

const member = (text: string, name = 'usage'): unknown => topLevelMember(Buffer.from(text), name);

const AGENTS = join(import.meta.dirname, '../../../test/fixtures/agents');

describe('topLevelMember', () => {
  it('reads the member of an answer as JSON.parse would, wherever it sits', () => {
    const usage = { prompt_tokens: 8, completion_tokens: 14, details: { cached: [1, 2] } };
    const bodies = [
      { id: 'a', choices: [{ message: { content: 'hi' } }], usage },
      { usage, id: 'b' },
      { id: 'c', usage, system_fingerprint: null, service_tier: 'default' },
      { usage: null },
      { usage: 42 },
      { usage: 'text' },
    ];
    for (const body of bodies) {
      expect(member(JSON.stringify(body))).toEqual(body.usage);
      expect(member(JSON.stringify(body, null, 2))).toEqual(body.usage);
    }
  });

  it('never mistakes a nested member, a string value or text inside strings for it', () => {
    const tricky = {
      choices: [{ usage: 'nested', message: { content: '"usage": {"x": 1}, } ] { [' } }],
      note: 'usage',
      quoted: 'a \\" "usage":1 \\\\',
      'us"age': 1,
      usage: { total: 3 },
      tail: ['usage', { usage: 9 }],
    };
    expect(member(JSON.stringify(tricky))).toEqual({ total: 3 });
    expect(member(JSON.stringify({ choices: [{ usage: 1 }] }))).toBeUndefined();
    expect(member(JSON.stringify({ a: 'usage' }))).toBeUndefined();
  });

  it('takes the last of duplicate members, as JSON.parse does, and reads other names', () => {
    expect(member('{"usage":{"a":1},"x":2,"usage":{"b":2}}')).toEqual({ b: 2 });
    expect(member('{"usageMetadata":{"totalTokenCount":5},"usage":1}', 'usageMetadata')).toEqual({
      totalTokenCount: 5,
    });
    expect(member('{"usageMetadata":1}')).toBeUndefined();
  });

  it('reads unicode and escapes around it untouched', () => {
    const body = { content: 'héllo 🌍 \u0000 \\ \n "q"', usage: { text: '🌍"' } };
    expect(member(JSON.stringify(body))).toEqual({ text: '🌍"' });
  });

  it('has no member in a JSON text that is not an object, and throws if that is not JSON either', () => {
    expect(member('[{"usage":1}]')).toBeUndefined();
    expect(member(' "usage" ')).toBeUndefined();
    expect(() => member('usage')).toThrow(SyntaxError);
    expect(() => member('')).toThrow(SyntaxError);
  });

  it.each([
    ['truncated', '{"id":"a","usage":{"prompt_tokens":8'],
    ['truncated inside a string', '{"id":"a","content":"hel'],
    ['mismatched brackets', '{"choices":[{"a":1}}]}'],
    ['an extra closer', '{"a":1}}'],
    ['trailing data', '{"usage":{"a":1}} x'],
    ['a malformed member value', '{"usage":{"a":},"b":1}'],
  ])('throws a SyntaxError for %s', (_what, text) => {
    expect(() => member(text)).toThrow(SyntaxError);
  });

  it('agrees with JSON.parse on every top-level member of the recorded agent requests', () => {
    const files = readdirSync(AGENTS).filter((f) => f.endsWith('.json'));
    expect(files.length).toBeGreaterThan(5);
    let checked = 0;
    for (const file of files) {
      const buf = readFileSync(join(AGENTS, file));
      const parsed = JSON.parse(buf.toString('utf8')) as Record<string, unknown>;
      for (const name of Object.keys(parsed)) {
        expect(topLevelMember(buf, name)).toEqual(parsed[name]);
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(30);
  });
});
