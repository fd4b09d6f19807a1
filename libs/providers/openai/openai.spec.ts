import { readFileSync } from 'node:fs';
import { describe, expect, it } from '@jest/globals';
import { sseData, SseEventSplitter } from '#libs/protocol';
import { classifyChatStreamData, prepareChatRequest, usageFromChatCompletion } from './index.js';

const fixture = (name: string): string =>
  readFileSync(new URL(`./fixtures/${name}`, import.meta.url), 'utf8');
const json = (name: string): Record<string, unknown> => JSON.parse(fixture(name)) as Record<string, unknown>;

describe('openai chat adapter', () => {
  it('passes the request through, changing only the model and asking for stream usage', () => {
    const prepared = prepareChatRequest(json('chat-request.in.json'), 'gpt-4o-mini-2024-07-18');
    expect(prepared.body).toEqual(json('chat-request.out.json'));
    expect(prepared.clientWantsUsage).toBe(false);
  });

  it('returns the very same body object when nothing needs changing', () => {
    const body = { model: 'm', messages: [] };
    expect(prepareChatRequest(body, 'm').body).toBe(body);
  });

  it('keeps the client usage request and its other stream options', () => {
    const body = {
      model: 'm',
      messages: [],
      stream: true,
      stream_options: { include_usage: true, include_obfuscation: false },
    };
    const prepared = prepareChatRequest(body, 'm');
    expect(prepared.clientWantsUsage).toBe(true);
    expect(prepared.body.stream_options).toEqual({ include_usage: true, include_obfuscation: false });
  });

  it('reads usage, including cached tokens, from a completion', () => {
    expect(usageFromChatCompletion(json('chat-completion.out.json'))).toEqual({
      inputTokens: 1117,
      outputTokens: 46,
      cachedTokens: 1024,
      cacheWrite5mTokens: 0,
      cacheWrite1hTokens: 0,
      reasoningTokens: 0,
    });
    expect(usageFromChatCompletion({ id: 'x' })).toBeNull();
    const deepseek = { usage: { prompt_tokens: 10, completion_tokens: 2, prompt_cache_hit_tokens: 8 } };
    expect(usageFromChatCompletion(deepseek)).toEqual({
      inputTokens: 10,
      outputTokens: 2,
      cachedTokens: 8,
      cacheWrite5mTokens: 0,
      cacheWrite1hTokens: 0,
      reasoningTokens: 0,
    });
  });

  it('classifies a recorded stream: deltas, the usage chunk, [DONE]', () => {
    const splitter = new SseEventSplitter();
    const events = splitter.push(new TextEncoder().encode(fixture('chat-stream-usage.sse')));
    expect(events.map((e) => classifyChatStreamData(sseData(e)!))).toEqual(
      json('chat-stream-usage.events.json'),
    );
  });
});
