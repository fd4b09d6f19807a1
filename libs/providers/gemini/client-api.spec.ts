import { readFileSync } from 'node:fs';
import { describe, expect, it } from '@jest/globals';
import { type ClientRequestParts } from '../src/adapter.js';
import { type JsonObject } from '../src/types.js';
import { countContentTokensApi, generateContentApi, geminiClient } from './client-api.js';

const recorded = (name: string): { body: JsonObject; path: string; query?: Record<string, string> } =>
  JSON.parse(readFileSync(`test/fixtures/agents/${name}`, 'utf8')) as {
    body: JsonObject;
    path: string;
    query?: Record<string, string>;
  };

/** The route parameters of a recorded path (`/v1beta/models/{model}:{action}`). */
function partsOf(path: string, query: Record<string, string> = {}): ClientRequestParts {
  const [, model, action] = /^\/v1beta\/models\/([^:]+):([A-Za-z]+)/.exec(path)!;
  return { params: { model, action }, query };
}

const body = { contents: [{ role: 'user', parts: [{ text: 'Hi' }] }] };
const stream = partsOf('/v1beta/models/gemini-2.5-flash:streamGenerateContent', { alt: 'sse' });

describe('generateContentApi', () => {
  it('is Google’s API: its route, error shape and key sources; translated by geminiClient', () => {
    expect(generateContentApi).toMatchObject({
      name: 'generate_content',
      route: '/v1beta/models/{model}:generateContent',
      errors: 'google',
      keySources: ['x-goog-api-key', 'key-query', 'authorization'],
      streams: true,
      hub: geminiClient,
    });
    expect([geminiClient.name, geminiClient.vendorHeaders]).toEqual(['generate_content', []]);
    expect(generateContentApi.includeUsage(body)).toBe(true);
  });

  it('reads the model and the stream flag from the path, never the body', () => {
    expect(generateContentApi.target({ ...body, model: 'other' }, stream)).toEqual({
      model: 'gemini-2.5-flash',
      stream: true,
    });
    const once = partsOf('/v1beta/models/gemini-3-flash-preview:generateContent');
    expect(generateContentApi.target(body, once)).toEqual({ model: 'gemini-3-flash-preview', stream: false });
  });

  it('accepts every recorded Gemini CLI request', () => {
    for (const name of [1, 2, 3, 4, 5].map((n) => `gemini-cli.generate-content.${n}.json`)) {
      const r = recorded(name);
      expect(generateContentApi.validate(r.body, partsOf(r.path, r.query))).toBeNull();
    }
    const classifier = recorded('gemini-cli.routing.1.json');
    expect(generateContentApi.validate(classifier.body, partsOf(classifier.path))).toBeNull();
  });

  it('serves streams as Server-Sent Events only, and says so', () => {
    const problem = generateContentApi.validate(body, { ...stream, query: {} });
    expect([problem?.code, problem?.details.param]).toEqual(['invalid_request', 'alt']);
    expect(problem?.message).toContain('alt=sse only');
    expect(generateContentApi.validate(body, { ...stream, query: { alt: 'json' } })?.details.param).toBe(
      'alt',
    );
  });

  it('serves only its two methods, and checks the body as Google does', () => {
    const embed = partsOf('/v1beta/models/gemini-embedding-001:embedContent');
    expect(generateContentApi.validate(body, embed)?.code).toBe('not_found');
    expect(generateContentApi.validate({ ...body, prompt: 'x' }, stream)?.message).toBe(
      'Invalid JSON payload received. Unknown name "prompt": Cannot find field.',
    );
    expect(generateContentApi.validate({}, stream)?.details.param).toBe('contents');
  });

  it('captures the system instruction apart and each turn in the conventions’ shapes', () => {
    const golden = JSON.parse(
      readFileSync(new URL('./fixtures/client-request.in.json', import.meta.url), 'utf8'),
    ) as JsonObject;
    const content = generateContentApi.inputContent(golden);
    expect(content.system).toEqual([
      { type: 'text', content: 'You are a travel assistant. Use the tools to check flights and book taxis.' },
    ]);
    expect(content.messages.slice(1, 3)).toEqual([
      {
        role: 'assistant',
        parts: [
          { type: 'reasoning', content: '**Checking the flight**\n\nI should look up AA100 first.' },
          { type: 'tool_call', id: null, name: 'check_flight', arguments: { flight: 'AA100' } },
        ],
      },
      {
        role: 'user',
        parts: [
          { type: 'tool_call_response', id: null, response: { status: 'delayed', departure_time: '12 PM' } },
        ],
      },
    ]);
    const image = JSON.parse(
      readFileSync(new URL('./fixtures/client-image.in.json', import.meta.url), 'utf8'),
    ) as JsonObject;
    expect(generateContentApi.inputContent(image).messages[0]?.parts.slice(0, 2)).toEqual([
      { type: 'blob', modality: 'image', mime_type: 'image/png', content: expect.any(String) as unknown },
      {
        type: 'uri',
        modality: 'image',
        mime_type: 'image/jpeg',
        uri: 'https://storage.example.com/cats/neko.jpg',
      },
    ]);
  });

  it('never throws on a body it does not recognise', () => {
    expect(
      generateContentApi.inputContent({ contents: [7, { parts: [{ executableCode: {} }, 'x'] }] }),
    ).toEqual({
      system: null,
      messages: [
        { role: 'user', parts: [] },
        { role: 'user', parts: [{ type: 'executableCode' }, { type: 'unknown' }] },
      ],
    });
  });
});

describe('countContentTokensApi', () => {
  const count = partsOf('/v1beta/models/gemini-2.5-flash:countTokens');

  it('is never translated, and counts locally with Google’s answer shape', async () => {
    expect(countContentTokensApi).toMatchObject({
      name: 'count_content_tokens',
      route: '/v1beta/models/{model}:countTokens',
      errors: 'google',
      streams: false,
      hub: null,
    });
    expect(countContentTokensApi.target({}, count)).toEqual({ model: 'gemini-2.5-flash', stream: false });
    expect(countContentTokensApi.localCount?.answer(42)).toEqual({ totalTokens: 42 });
    const tokens = await countContentTokensApi.localCount?.count(
      body,
      { model: 'm', stream: false },
      'o200k',
    );
    expect(tokens).toBeGreaterThan(0);
  });

  it('takes contents or a whole generateContentRequest, as Google does', () => {
    for (const name of ['gemini-cli.count-tokens.1.json', 'gemini-cli.count-tokens.2.json']) {
      const r = recorded(name);
      expect(countContentTokensApi.validate(r.body, partsOf(r.path))).toBeNull();
    }
    expect(
      countContentTokensApi.validate({ generateContentRequest: { model: 'models/x', ...body } }, count),
    ).toBeNull();
    expect(countContentTokensApi.validate({}, count)?.details.param).toBe('contents');
    expect(countContentTokensApi.validate({ contents: [] }, count)?.details.param).toBe('contents');
    expect(countContentTokensApi.validate({ ...body, model: 'x' }, count)?.details.param).toBe('model');
    expect(
      countContentTokensApi.validate({ generateContentRequest: { contents: [{ parts: [] }] } }, count)
        ?.details.param,
    ).toBe('contents[0].parts');
    expect(
      countContentTokensApi.validate(body, {
        ...count,
        params: { ...count.params, action: 'generateContent' },
      })?.code,
    ).toBe('not_found');
  });

  it('captures what is counted', () => {
    const inner = { generateContentRequest: { systemInstruction: { parts: [{ text: 's' }] }, ...body } };
    expect(countContentTokensApi.inputContent(inner)).toEqual({
      system: [{ type: 'text', content: 's' }],
      messages: [{ role: 'user', parts: [{ type: 'text', content: 'Hi' }] }],
    });
  });
});
