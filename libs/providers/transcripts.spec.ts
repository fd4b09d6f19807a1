import { readFileSync } from 'node:fs';
import { describe, expect, it } from '@jest/globals';
import { sseData, SseEventSplitter } from '#libs/protocol';
import { CONTENT_MAX_BYTES } from '#libs/telemetry';
import { messagesWire } from './anthropic/index.js';
import { chatWire, responsesWire } from './openai/index.js';
import { type WireFormat } from './src/adapter.js';

type StreamWireFormat = 'openai-chat' | 'openai-responses' | 'anthropic';
const WIRES: Readonly<Record<StreamWireFormat, WireFormat>> = {
  'openai-chat': chatWire,
  'openai-responses': responsesWire,
  anthropic: messagesWire,
};
const streamTranscript = (format: StreamWireFormat) => WIRES[format].transcript();

const fixture = (name: string): string =>
  readFileSync(new URL(`./transcript-fixtures/${name}`, import.meta.url), 'utf8');

/** The `data:` payloads of an SSE text, split as the relay splits them. */
function payloads(sse: string): string[] {
  return new SseEventSplitter()
    .push(new TextEncoder().encode(sse))
    .map(sseData)
    .filter((d): d is string => d !== null);
}

function transcriptOf(format: StreamWireFormat, sse: string) {
  const t = streamTranscript(format);
  for (const data of payloads(sse)) t.push(data);
  return t.messages();
}

describe('stream transcripts: <case>.sse -> <case>.out.json', () => {
  it.each<[string, StreamWireFormat]>([
    ['chat-tools', 'openai-chat'],
    ['chat-two-choices', 'openai-chat'],
    ['completions', 'openai-chat'],
    ['responses-tools', 'openai-responses'],
    ['anthropic-tools', 'anthropic'],
    ['anthropic-cut', 'anthropic'],
  ])('%s (%s)', (name, format) => {
    expect(transcriptOf(format, fixture(`${name}.sse`))).toEqual(JSON.parse(fixture(`${name}.out.json`)));
  });
});

describe('stream transcripts: edges', () => {
  const chatChunk = (delta: object, finish: string | null = null) =>
    JSON.stringify({
      object: 'chat.completion.chunk',
      choices: [{ index: 0, delta, finish_reason: finish }],
    });

  it('a vendor repeating the tool name on every delta does not repeat it in the call', () => {
    const t = streamTranscript('openai-chat');
    const call = (args: string) => ({
      tool_calls: [{ index: 0, id: 'call_1', function: { name: 'lookup', arguments: args } }],
    });
    t.push(chatChunk(call('{"q":')));
    t.push(chatChunk(call('"x"}'), 'tool_calls'));
    expect(t.messages()[0]!.parts).toEqual([
      { type: 'tool_call', id: 'call_1', name: 'lookup', arguments: { q: 'x' } },
    ]);
  });

  it('a stream cut before any finish says error; junk and keep-alives are skipped', () => {
    const t = streamTranscript('openai-chat');
    t.push(chatChunk({ content: 'partial' }));
    t.push('not json');
    t.push('{"choices":"odd"}');
    expect(t.messages()).toEqual([
      { role: 'assistant', parts: [{ type: 'text', content: 'partial' }], finish_reason: 'error' },
    ]);
  });

  it('keeps at most the bound of a long generation (the capture is cut there anyway)', () => {
    const t = streamTranscript('anthropic');
    t.push('{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}');
    const delta = JSON.stringify({
      type: 'content_block_delta',
      index: 0,
      delta: { type: 'text_delta', text: 'x'.repeat(1000) },
    });
    for (let i = 0; i < 200; i++) t.push(delta);
    const kept = t.messages()[0]!.parts[0]!.content as string;
    expect(kept.length).toBeGreaterThanOrEqual(CONTENT_MAX_BYTES);
    expect(kept.length).toBeLessThan(CONTENT_MAX_BYTES + 1000);
  });
});
