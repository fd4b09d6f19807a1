import { describe, expect, it } from '@jest/globals';
import { embed } from './openai-embeddings.js';
import { replyText, shapeReply, splitEvenly, textOf, tokensOf } from './text.js';
import { argumentsFor, planToolCall } from './tools.js';

describe('deterministic text', () => {
  it('counts about one token per four characters', () => {
    expect([tokensOf(''), tokensOf('a'), tokensOf('abcd'), tokensOf('abcde')]).toEqual([0, 1, 1, 2]);
  });

  it('pads the default reply to about one token per delta, and keeps a fixed reply verbatim', () => {
    expect(replyText('Hello  big world', null, 1)).toBe('This is a mock reply to: Hello big world');
    expect(replyText('', null, 20).length).toBeGreaterThanOrEqual(80);
    expect(replyText('anything', 'exact', 50)).toBe('exact');
  });

  it('splits into at most n pieces that join back, never inside a surrogate pair', () => {
    expect(splitEvenly('abcdefghij', 3)).toEqual(['abc', 'defg', 'hij']);
    expect(splitEvenly('ab', 5)).toEqual(['a', 'b']);
    expect(splitEvenly('', 5)).toEqual([]);
    const emoji = '😀😀😀';
    expect(splitEvenly(emoji, 4).join('')).toBe(emoji);
    expect(splitEvenly(emoji, 4).every((p) => p.length % 2 === 0)).toBe(true);
  });

  it('cuts at the token budget (length) and at the earliest stop sequence', () => {
    expect(shapeReply('abcdefghij', { chunkCount: 2, maxTokens: 2 })).toMatchObject({
      text: 'abcdefgh',
      finish: 'length',
      tokens: 2,
    });
    expect(shapeReply('one two three', { chunkCount: 2, stops: ['three', 'two'] })).toMatchObject({
      text: 'one ',
      finish: 'stop_sequence',
      stopSequence: 'two',
    });
    expect(shapeReply('abc', { chunkCount: 2 })).toMatchObject({
      text: 'abc',
      finish: 'stop',
      stopSequence: null,
      deltas: ['ab', 'c'],
    });
  });

  it('reads text out of vendor content shapes', () => {
    expect(
      textOf([
        { type: 'text', text: 'a' },
        { type: 'image' },
        { type: 'tool_result', content: [{ type: 'text', text: 'b' }] },
      ]),
    ).toBe('a b');
    expect(textOf(null)).toBe('');
  });
});

describe('tool calls', () => {
  const tools = [
    { name: 'lookup', schema: {} },
    {
      name: 'get_weather',
      schema: { type: 'object', properties: { city: { type: 'string' }, days: { type: 'integer' } } },
    },
  ];

  it('calls on "weather", on forcing, and never with none', () => {
    expect(planToolCall(tools, { kind: 'auto' }, 'Weather in Oslo?')).toEqual({
      name: 'get_weather',
      arguments: '{"city":"San Francisco, CA","days":1}',
    });
    expect(planToolCall(tools, { kind: 'auto' }, 'hello')).toBeNull();
    expect(planToolCall(tools, { kind: 'auto' }, null)).toBeNull();
    expect(planToolCall(tools, { kind: 'any' }, 'hello')?.name).toBe('lookup');
    expect(planToolCall(tools, { kind: 'named', name: 'get_weather' }, null)?.name).toBe('get_weather');
    expect(planToolCall(tools, { kind: 'none' }, 'weather')).toBeNull();
  });

  it('fills required arguments by type', () => {
    const schema = {
      type: 'object',
      required: ['a', 'b', 'c'],
      properties: {
        a: { enum: ['x', 'y'] },
        b: { type: 'boolean' },
        c: { type: 'object', properties: { d: { type: 'number' } } },
      },
    };
    expect(argumentsFor(schema)).toEqual({ a: 'x', b: true, c: { d: 1 } });
  });
});

describe('embeddings', () => {
  it('are deterministic unit vectors', () => {
    const a = embed('hello', 8);
    expect(Array.from(a)).toEqual(Array.from(embed('hello', 8)));
    expect(Array.from(a)).not.toEqual(Array.from(embed('hellp', 8)));
    expect(Math.sqrt(a.reduce((s, v) => s + v * v, 0))).toBeCloseTo(1, 5);
  });
});
