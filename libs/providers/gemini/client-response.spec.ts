import { readFileSync } from 'node:fs';
import { describe, expect, it } from '@jest/globals';
import { SseEventSplitter } from '#libs/protocol';
import { type ChatChunk, type ChatCompletion, type ChatDelta } from '../src/chat.js';
import { type ClientContext, type SseFrame } from '../src/translation.js';
import { type JsonObject } from '../src/types.js';
import { geminiClient } from './client-api.js';

const fixture = (name: string): string =>
  readFileSync(new URL(`./fixtures/${name}`, import.meta.url), 'utf8');
const json = <T = JsonObject>(name: string): T => JSON.parse(fixture(name)) as T;

const thinkingRequest = { contents: [], generationConfig: { thinkingConfig: { includeThoughts: true } } };
const ctxOf = (request: JsonObject = {}): ClientContext => ({
  requestId: 'req_01',
  model: 'gemini-2.5-flash',
  created: 1_700_000_000,
  includeUsage: true,
  request,
});

const completion = (message: JsonObject, finish_reason: string | null, usage = true): ChatCompletion =>
  ({
    id: 'chatcmpl-1',
    object: 'chat.completion',
    created: 1,
    model: 'x',
    choices: [{ index: 0, message: { role: 'assistant', content: null, ...message }, finish_reason }],
    ...(usage ? { usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 } } : {}),
  }) as ChatCompletion;

const chunk = (delta: ChatDelta, finish_reason: string | null = null, index = 0): ChatChunk =>
  ({
    id: 'c',
    object: 'chat.completion.chunk',
    created: 1,
    model: 'm',
    choices: [{ index, delta, finish_reason }],
  }) as ChatChunk;

const decoded = (frames: readonly SseFrame[]): unknown[] => frames.map((f) => JSON.parse(f.data) as unknown);

describe('geminiClient.fromHub', () => {
  it('answers with thoughts, text and whole function calls, usage in Google’s convention (golden)', () => {
    const hub = json<ChatCompletion>('client-completion.in.json');
    expect(geminiClient.fromHub(hub, ctxOf(thinkingRequest))).toEqual(json('client-completion.out.json'));
  });

  it('shows reasoning only when the request asked for thoughts, in either spelling', () => {
    const hub = completion({ content: 'a', reasoning_content: 'r' }, 'stop');
    const parts = (request: JsonObject): unknown =>
      (geminiClient.fromHub(hub, ctxOf(request)).candidates as { content: { parts: unknown } }[])[0]!.content
        .parts;
    expect(parts({})).toEqual([{ text: 'a' }]);
    expect(parts({ generation_config: { thinking_config: { include_thoughts: true } } })).toEqual([
      { text: 'r', thought: true },
      { text: 'a' },
    ]);
  });

  it('maps every finish reason, a refusal to SAFETY, and leaves out parts Google would not send', () => {
    const reason = (finish: string | null, message: JsonObject = { content: 'x' }): unknown =>
      (geminiClient.fromHub(completion(message, finish), ctxOf()).candidates as JsonObject[])[0]!
        .finishReason;
    expect(reason('stop')).toBe('STOP');
    expect(reason('length')).toBe('MAX_TOKENS');
    expect(reason('tool_calls')).toBe('STOP');
    expect(reason('content_filter')).toBe('SAFETY');
    expect(reason(null)).toBe('STOP');
    expect(reason('stop', { refusal: 'I cannot help with that.' })).toBe('SAFETY');
    const empty = geminiClient.fromHub(completion({ content: '' }, 'length', false), ctxOf());
    expect(empty).toEqual({
      candidates: [{ content: { role: 'model' }, finishReason: 'MAX_TOKENS', index: 0 }],
      modelVersion: 'gemini-2.5-flash',
      responseId: 'req_01',
    });
  });

  it('fails loudly on function arguments that are not a JSON object, and reads empty ones as none', () => {
    const call = (args: string): ChatCompletion =>
      completion(
        { tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: args } }] },
        'tool_calls',
      );
    const parts = (
      geminiClient.fromHub(call(''), ctxOf()).candidates as { content: { parts: unknown } }[]
    )[0]!.content.parts;
    expect(parts).toEqual([{ functionCall: { id: 'c1', name: 'f', args: {} } }]);
    expect(() => geminiClient.fromHub(call('{"a":'), ctxOf())).toThrow(
      expect.objectContaining({ code: 'upstream_error' }),
    );
    expect(() => geminiClient.fromHub(call('[1]'), ctxOf())).toThrow(
      expect.objectContaining({ code: 'upstream_error' }),
    );
  });
});

describe('geminiClient.streamFromHub', () => {
  const chunksOf = (text: string): ChatChunk[] =>
    new SseEventSplitter()
      .push(new TextEncoder().encode(text))
      .map((raw) => raw.trim().replace(/^data: /, ''))
      .filter((data) => data !== '[DONE]')
      .map((data) => JSON.parse(data) as ChatChunk);

  it('streams text and thoughts chunk by chunk and function calls whole, usage last (golden)', () => {
    const stream = geminiClient.streamFromHub(ctxOf(thinkingRequest));
    const frames = [
      ...chunksOf(fixture('client-stream.sse')).flatMap((c) => stream.push(c)),
      ...stream.end(),
    ];
    expect(frames.every((f) => f.event === undefined)).toBe(true);
    expect(decoded(frames)).toEqual(json('client-stream.events.json'));
  });

  it('sends a call as soon as later output shows it complete, before that output', () => {
    const stream = geminiClient.streamFromHub(ctxOf());
    expect(
      stream.push(
        chunk({ tool_calls: [{ index: 0, id: 'c1', function: { name: 'f', arguments: '{"a"' } }] }),
      ),
    ).toEqual([]);
    stream.push(chunk({ tool_calls: [{ index: 0, function: { arguments: ':1}' } }] }));
    expect(decoded(stream.push(chunk({ content: 'Done.' })))).toEqual([
      {
        candidates: [
          {
            content: {
              role: 'model',
              parts: [{ functionCall: { id: 'c1', name: 'f', args: { a: 1 } } }, { text: 'Done.' }],
            },
            index: 0,
          },
        ],
        modelVersion: 'gemini-2.5-flash',
        responseId: 'req_01',
      },
    ]);
    expect(decoded(stream.push(chunk({}, 'stop')))).toEqual([]);
    expect(decoded(stream.end())).toEqual([
      {
        candidates: [{ content: { role: 'model' }, finishReason: 'STOP', index: 0 }],
        modelVersion: 'gemini-2.5-flash',
        responseId: 'req_01',
      },
    ]);
  });

  it('hides reasoning unless asked, keeps candidates apart, and names a call without an id', () => {
    const stream = geminiClient.streamFromHub(ctxOf());
    expect(stream.push(chunk({ reasoning_content: 'hmm' }))).toEqual([]);
    stream.push(chunk({ content: 'one' }, null, 0));
    stream.push(
      chunk({ tool_calls: [{ index: 0, function: { name: 'g', arguments: '{}' } }] }, 'tool_calls', 1),
    );
    const last = decoded(stream.end())[0] as { candidates: unknown };
    expect(last.candidates).toEqual([
      { content: { role: 'model' }, finishReason: 'STOP', index: 0 },
      {
        content: { role: 'model', parts: [{ functionCall: { id: 'call_req_01_1_0', name: 'g', args: {} } }] },
        finishReason: 'STOP',
        index: 1,
      },
    ]);
  });

  it('ends an empty stream with a finish reason, and a cut one with Google’s error, nothing after either', () => {
    const empty = geminiClient.streamFromHub(ctxOf());
    expect(decoded(empty.end())).toEqual([
      {
        candidates: [{ content: { role: 'model' }, finishReason: 'STOP', index: 0 }],
        modelVersion: 'gemini-2.5-flash',
        responseId: 'req_01',
      },
    ]);
    expect(empty.end()).toEqual([]);
    const cut = geminiClient.streamFromHub(ctxOf());
    cut.push(chunk({ content: 'Hel' }));
    expect(cut.fail({ type: 'upstream_error', message: 'The provider closed the stream.' })).toEqual([
      { data: '{"error":{"code":500,"message":"The provider closed the stream.","status":"INTERNAL"}}' },
    ]);
    expect([...cut.push(chunk({ content: 'lo' })), ...cut.end()]).toEqual([]);
  });

  it('marks a refusal or a filtered stream SAFETY and a cut-short one MAX_TOKENS', () => {
    const reason = (deltas: [ChatDelta, string | null][]): unknown => {
      const stream = geminiClient.streamFromHub(ctxOf());
      for (const [delta, finish] of deltas) stream.push(chunk(delta, finish));
      return (decoded(stream.end())[0] as { candidates: JsonObject[] }).candidates[0]!.finishReason;
    };
    expect(reason([[{ refusal: 'No.' }, 'stop']])).toBe('SAFETY');
    expect(reason([[{ content: 'x' }, 'content_filter']])).toBe('SAFETY');
    expect(reason([[{ content: 'x' }, 'length']])).toBe('MAX_TOKENS');
  });
});
