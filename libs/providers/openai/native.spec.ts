import { readFileSync } from 'node:fs';
import { describe, expect, it } from '@jest/globals';
import {
  chatRoute,
  completionsRoute,
  embeddingsRoute,
  prepareChatRequest,
  responsesRoute,
  usageFromChatCompletion,
} from './index.js';

const fixture = (name: string): string =>
  readFileSync(new URL(`./fixtures/${name}`, import.meta.url), 'utf8');
const json = (name: string): Record<string, unknown> => JSON.parse(fixture(name)) as Record<string, unknown>;

describe('openai chat passthrough', () => {
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
});

describe('openai native routes', () => {
  it('route to their upstream paths', () => {
    for (const [route, path] of [
      [completionsRoute, '/completions'],
      [embeddingsRoute, '/embeddings'],
      [responsesRoute, '/responses'],
    ] as const) {
      expect(route.path('m', false)).toBe(path);
    }
    expect(chatRoute.path('m', false)).toBe('/chat/completions');
  });
});

describe('completions', () => {
  it('swaps the model and asks a stream for usage, keeping other stream options', () => {
    const prepared = completionsRoute.prepare(
      json('completions-request.in.json'),
      'gpt-3.5-turbo-instruct-0914',
    );
    expect(prepared.body).toEqual(json('completions-request.out.json'));
    expect(prepared.clientWantsUsage).toBe(false);
  });

  it('reads usage from a completion', () => {
    expect(completionsRoute.usageOfBody(json('completion.out.json'))).toEqual({
      inputTokens: 5,
      outputTokens: 7,
      cachedTokens: 0,
      cacheWrite5mTokens: 0,
      cacheWrite1hTokens: 0,
      reasoningTokens: 0,
    });
  });
});

describe('embeddings', () => {
  it('swaps only the model: input and encoding_format pass untouched', () => {
    const prepared = embeddingsRoute.prepare(json('embeddings-request.in.json'), 'text-embedding-3-small');
    expect(prepared.body).toEqual(json('embeddings-request.out.json'));
  });

  it('returns the very same body object when the model does not change', () => {
    const body = { model: 'm', input: 'x' };
    expect(embeddingsRoute.prepare(body, 'm').body).toBe(body);
  });

  it('counts prompt tokens as input and no output', () => {
    expect(embeddingsRoute.usageOfBody(json('embeddings.out.json'))).toEqual({
      inputTokens: 8,
      outputTokens: 0,
      cachedTokens: 0,
      cacheWrite5mTokens: 0,
      cacheWrite1hTokens: 0,
      reasoningTokens: 0,
    });
  });
});

describe('responses', () => {
  it('swaps only the model and never strips anything from a stream', () => {
    const prepared = responsesRoute.prepare(json('responses-request.in.json'), 'gpt-4.1-2025-04-14');
    expect(prepared.body).toEqual(json('responses-request.out.json'));
    expect(prepared.clientWantsUsage).toBe(true);
  });

  it('reads input, output and cached tokens from a response', () => {
    expect(responsesRoute.usageOfBody(json('response.out.json'))).toEqual({
      inputTokens: 36,
      outputTokens: 87,
      cachedTokens: 16,
      cacheWrite5mTokens: 0,
      cacheWrite1hTokens: 0,
      reasoningTokens: 0,
    });
    expect(responsesRoute.usageOfBody({ id: 'x', usage: null })).toBeNull();
  });
});
