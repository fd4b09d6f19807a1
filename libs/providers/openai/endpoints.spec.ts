import { readFileSync } from 'node:fs';
import { describe, expect, it } from '@jest/globals';
import { sseData, SseEventSplitter } from '#libs/protocol';
import {
  chatCompletionsEndpoint,
  completionsEndpoint,
  embeddingsEndpoint,
  type OpenAIEndpoint,
  responsesEndpoint,
} from './index.js';

const fixture = (name: string): string =>
  readFileSync(new URL(`./fixtures/${name}`, import.meta.url), 'utf8');
const json = (name: string): Record<string, unknown> => JSON.parse(fixture(name)) as Record<string, unknown>;

const classifyRecorded = (endpoint: OpenAIEndpoint, name: string): unknown[] =>
  new SseEventSplitter()
    .push(new TextEncoder().encode(fixture(name)))
    .map((e) => endpoint.classifyStreamData(sseData(e)!));

describe('openai endpoint descriptors', () => {
  it('route to their upstream paths', () => {
    for (const [endpoint, path] of [
      [completionsEndpoint, '/completions'],
      [embeddingsEndpoint, '/embeddings'],
      [responsesEndpoint, '/responses'],
    ] as const) {
      expect(endpoint.path).toBe(path);
      expect(endpoint.route).toBe(`/v1${path}`);
    }
    expect(chatCompletionsEndpoint.path).toBe('/chat/completions');
    expect(embeddingsEndpoint.streams).toBe(false);
  });

  it('name the first missing required field', () => {
    expect(chatCompletionsEndpoint.missingField({ model: 'm', messages: 'x' })).toBe('messages');
    expect(completionsEndpoint.missingField({ model: 'm' })).toBe('prompt');
    expect(completionsEndpoint.missingField({ prompt: 'p' })).toBe('model');
    expect(completionsEndpoint.missingField({ model: 'm', prompt: '' })).toBeNull();
    expect(embeddingsEndpoint.missingField({ model: 'm' })).toBe('input');
    expect(embeddingsEndpoint.missingField({ model: 'm', input: ['a'] })).toBeNull();
    expect(responsesEndpoint.missingField({ model: 'm' })).toBe('input');
  });
});

describe('completions', () => {
  it('swaps the model and asks a stream for usage, keeping other stream options', () => {
    const prepared = completionsEndpoint.prepareRequest(
      json('completions-request.in.json'),
      'gpt-3.5-turbo-instruct-0914',
    );
    expect(prepared.body).toEqual(json('completions-request.out.json'));
    expect(prepared.clientWantsUsage).toBe(false);
  });

  it('reads usage from a completion', () => {
    expect(completionsEndpoint.usageFromBody(json('completion.out.json'))).toEqual({
      inputTokens: 5,
      outputTokens: 7,
      cachedTokens: 0,
      cacheWrite5mTokens: 0,
      cacheWrite1hTokens: 0,
      reasoningTokens: 0,
    });
  });

  it('classifies a recorded stream: chunks with usage null, the usage chunk, [DONE]', () => {
    expect(classifyRecorded(completionsEndpoint, 'completions-stream-usage.sse')).toEqual(
      json('completions-stream-usage.events.json'),
    );
  });
});

describe('embeddings', () => {
  it('swaps only the model: input and encoding_format pass untouched', () => {
    const prepared = embeddingsEndpoint.prepareRequest(
      json('embeddings-request.in.json'),
      'text-embedding-3-small',
    );
    expect(prepared.body).toEqual(json('embeddings-request.out.json'));
  });

  it('returns the very same body object when the model does not change', () => {
    const body = { model: 'm', input: 'x' };
    expect(embeddingsEndpoint.prepareRequest(body, 'm').body).toBe(body);
  });

  it('counts prompt tokens as input and no output', () => {
    expect(embeddingsEndpoint.usageFromBody(json('embeddings.out.json'))).toEqual({
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
    const prepared = responsesEndpoint.prepareRequest(
      json('responses-request.in.json'),
      'gpt-4.1-2025-04-14',
    );
    expect(prepared.body).toEqual(json('responses-request.out.json'));
    expect(prepared.clientWantsUsage).toBe(true);
  });

  it('reads input, output and cached tokens from a response', () => {
    expect(responsesEndpoint.usageFromBody(json('response.out.json'))).toEqual({
      inputTokens: 36,
      outputTokens: 87,
      cachedTokens: 16,
      cacheWrite5mTokens: 0,
      cacheWrite1hTokens: 0,
      reasoningTokens: 0,
    });
    expect(responsesEndpoint.usageFromBody({ id: 'x', usage: null })).toBeNull();
  });

  it('classifies a recorded stream: only the terminal event ends it and carries usage', () => {
    expect(classifyRecorded(responsesEndpoint, 'responses-stream.sse')).toEqual(
      json('responses-stream.events.json'),
    );
  });

  it('ends on response.incomplete and response.failed too', () => {
    for (const type of ['response.incomplete', 'response.failed']) {
      expect(
        responsesEndpoint.classifyStreamData(JSON.stringify({ type, response: { usage: null } })),
      ).toEqual({
        kind: 'end',
        usage: null,
      });
    }
  });
});
