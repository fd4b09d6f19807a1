import { readFileSync } from 'node:fs';
import { describe, expect, it } from '@jest/globals';
import { sseData, SseEventSplitter } from '#libs/protocol';
import { classifyChatStreamData, classifyResponsesStreamData, type OpenAIStreamEvent } from './index.js';

const fixture = (name: string): string =>
  readFileSync(new URL(`./fixtures/${name}`, import.meta.url), 'utf8');
const json = (name: string): Record<string, unknown> => JSON.parse(fixture(name)) as Record<string, unknown>;

const classifyRecorded = (classify: (data: string) => OpenAIStreamEvent, name: string): unknown[] =>
  new SseEventSplitter().push(new TextEncoder().encode(fixture(name))).map((e) => classify(sseData(e)!));

describe('chat stream classifier', () => {
  it('classifies a recorded stream: deltas, the usage chunk, [DONE]', () => {
    expect(classifyRecorded(classifyChatStreamData, 'chat-stream-usage.sse')).toEqual(
      json('chat-stream-usage.events.json'),
    );
  });

  it('classifies a recorded completions stream: chunks with usage null, the usage chunk, [DONE]', () => {
    expect(classifyRecorded(classifyChatStreamData, 'completions-stream-usage.sse')).toEqual(
      json('completions-stream-usage.events.json'),
    );
  });
});

describe('answers without a payload of their own', () => {
  it('are one frozen object each, shared by every event, so no caller can change the next one', () => {
    const chunk = classifyChatStreamData('{"choices":[{"delta":{"content":"a"}}]}');
    expect(classifyChatStreamData('{"choices":[{"delta":{"content":"b"}}]}')).toBe(chunk);
    expect(classifyResponsesStreamData('{"type":"response.output_text.delta"}')).toBe(chunk);
    expect(classifyChatStreamData('[DONE]')).toBe(classifyChatStreamData('[DONE]'));
    expect(Object.isFrozen(chunk)).toBe(true);
    expect(Object.isFrozen(classifyChatStreamData('[DONE]'))).toBe(true);
  });
});

describe('responses stream classifier', () => {
  it('classifies a recorded stream: only the terminal event ends it and carries usage', () => {
    expect(classifyRecorded(classifyResponsesStreamData, 'responses-stream.sse')).toEqual(
      json('responses-stream.events.json'),
    );
  });

  it('ends on response.incomplete and response.failed too', () => {
    for (const type of ['response.incomplete', 'response.failed']) {
      expect(classifyResponsesStreamData(JSON.stringify({ type, response: { usage: null } }))).toEqual({
        kind: 'end',
        usage: null,
      });
    }
  });
});
