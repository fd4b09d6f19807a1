import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import {
  ApiError,
  GoogleGenAI,
  Type,
  type Content,
  type GenerateContentResponse,
  type Tool,
} from '@google/genai';
import { startMockProvider, type MockProvider } from '../../index.js';

const KEY = 'AIza-mock-gemini-key';
let mock: MockProvider;
let ai: GoogleGenAI;

/**
 * The SDK defaults to the v1 API; Google's v1beta (the mock's, and the gateway's) is asked for.
 * Jest's VM realm hides Node's undici dispatcher from the SDK: handing it the realm's fetch skips
 * that lookup.
 */
const client = (apiKey: string): GoogleGenAI =>
  new GoogleGenAI({ apiKey, httpOptions: { baseUrl: mock.url, apiVersion: 'v1beta', fetch } });

beforeAll(async () => {
  mock = await startMockProvider({ requireApiKey: KEY });
  ai = client(KEY);
});
afterAll(() => mock.close());
beforeEach(() => mock.reset());

const hello = [{ role: 'user', parts: [{ text: 'Hello Gemini' }] }];

function post(path: string, body: unknown, headers: Record<string, string> = { 'x-goog-api-key': KEY }) {
  return fetch(`${mock.url}/v1beta/models/${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
}

const fails = (p: Promise<unknown>): Promise<ApiError> =>
  p.then(
    () => {
      throw new Error('expected the request to fail');
    },
    (e: unknown) => e as ApiError,
  );

describe('generateContent', () => {
  it('answers text with usage, model version and response id, and logs what was sent', async () => {
    const res = await ai.models.generateContent({ model: 'gemini-2.0-flash', contents: 'Hello Gemini' });
    expect(res.text).toMatch(/^This is a mock reply to: Hello Gemini/);
    expect(res.candidates?.[0]).toMatchObject({ finishReason: 'STOP', index: 0, content: { role: 'model' } });
    const output = Math.ceil((res.text ?? '').length / 4);
    expect(res.usageMetadata).toEqual({
      promptTokenCount: 3,
      candidatesTokenCount: output,
      totalTokenCount: 3 + output,
      promptTokensDetails: [{ modality: 'TEXT', tokenCount: 3 }],
    });
    expect(res.modelVersion).toBe('gemini-2.0-flash');
    expect(res.responseId).toMatch(/^resp_/);
    const [sent] = mock.requests;
    expect(sent?.path).toBe('/v1beta/models/gemini-2.0-flash:generateContent');
    expect(sent?.headers['x-goog-api-key']).toBe(KEY);
    expect(sent?.body).toMatchObject({ contents: hello });
  });

  it('thinks on 2.5 Flash: thoughtsTokenCount, a signed last text part, the summary when asked', async () => {
    const plain = await ai.models.generateContent({ model: 'gemini-2.5-flash', contents: 'Hello Gemini' });
    const parts = plain.candidates?.[0]?.content?.parts ?? [];
    expect(parts).toHaveLength(1);
    expect(parts[0]?.thoughtSignature).toMatch(/^[A-Za-z0-9+/]+=*$/);
    const thoughts = plain.usageMetadata?.thoughtsTokenCount ?? 0;
    expect(thoughts).toBeGreaterThan(0);
    const usage = plain.usageMetadata;
    expect(usage?.totalTokenCount).toBe(
      (usage?.promptTokenCount ?? 0) + (usage?.candidatesTokenCount ?? 0) + thoughts,
    );

    const shown = await ai.models.generateContent({
      model: 'gemini-2.5-flash',
      contents: 'Hello Gemini',
      config: { thinkingConfig: { includeThoughts: true } },
    });
    const shownParts = shown.candidates?.[0]?.content?.parts ?? [];
    expect(shownParts[0]).toEqual({ text: 'Thinking about: Hello Gemini', thought: true });
    expect(shown.text).toBe(plain.text);

    const off = await ai.models.generateContent({
      model: 'gemini-2.5-flash',
      contents: 'Hello Gemini',
      config: { thinkingConfig: { thinkingBudget: 0 } },
    });
    expect(off.usageMetadata?.thoughtsTokenCount).toBeUndefined();
    expect(off.candidates?.[0]?.content?.parts?.[0]?.thoughtSignature).toBeUndefined();
  });

  it('cuts at maxOutputTokens (thinking included) and at stop sequences', async () => {
    const cut = await ai.models.generateContent({
      model: 'gemini-2.0-flash',
      contents: 'Hi',
      config: { maxOutputTokens: 2 },
    });
    expect(cut.candidates?.[0]?.finishReason).toBe('MAX_TOKENS');
    expect(cut.text).toBe('This is ');
    const starved = await ai.models.generateContent({
      model: 'gemini-2.5-flash',
      contents: 'Hi',
      config: { maxOutputTokens: 2 },
    });
    expect(starved.candidates?.[0]).toMatchObject({ finishReason: 'MAX_TOKENS', content: { role: 'model' } });
    expect(starved.candidates?.[0]?.content?.parts).toBeUndefined();
    const stopped = await ai.models.generateContent({
      model: 'gemini-2.0-flash',
      contents: 'Hi',
      config: { stopSequences: ['mock'] },
    });
    expect(stopped.text).toBe('This is a ');
    expect(stopped.candidates?.[0]?.finishReason).toBe('STOP');
  });

  it('reports cache hits: implicit ones from behaviour, an explicit cachedContent added to the prompt', async () => {
    mock.setBehaviour({ cachedTokens: 2 });
    const implicit = await ai.models.generateContent({ model: 'gemini-2.0-flash', contents: 'Hello Gemini' });
    expect(implicit.usageMetadata).toMatchObject({
      promptTokenCount: 3,
      cachedContentTokenCount: 2,
      cacheTokensDetails: [{ modality: 'TEXT', tokenCount: 2 }],
    });
    mock.reset();
    const explicit = await ai.models.generateContent({
      model: 'gemini-2.0-flash',
      contents: 'Hello Gemini',
      config: { cachedContent: 'cachedContents/abc123' },
    });
    expect(explicit.usageMetadata).toMatchObject({ promptTokenCount: 1027, cachedContentTokenCount: 1024 });
  });
});

describe('streamGenerateContent', () => {
  const params = { model: 'gemini-2.5-flash', contents: 'Stream please, Gemini' };

  it('streams SSE chunks the SDK joins into the same answer as generateContent', async () => {
    const whole = await ai.models.generateContent(params);
    const chunks: GenerateContentResponse[] = [];
    for await (const chunk of await ai.models.generateContentStream(params)) chunks.push(chunk);
    expect(chunks).toHaveLength(8);
    expect(chunks.map((c) => c.text).join('')).toBe(whole.text);
    const last = chunks[chunks.length - 1];
    expect(last?.candidates?.[0]?.finishReason).toBe('STOP');
    expect(last?.usageMetadata).toEqual(whole.usageMetadata);
    expect(chunks[0]?.usageMetadata).toEqual({
      promptTokenCount: whole.usageMetadata?.promptTokenCount,
      totalTokenCount: whole.usageMetadata?.promptTokenCount,
      promptTokensDetails: whole.usageMetadata?.promptTokensDetails,
    });
    expect(new Set(chunks.map((c) => c.responseId)).size).toBe(1);
    expect(mock.requests.at(-1)?.query).toBe('alt=sse');
  });

  it('frames events as Google does (data: ... CRLF CRLF, no end marker), or as a JSON array without alt=sse', async () => {
    const body = { contents: [{ role: 'user', parts: [{ text: 'Hi' }] }] };
    const sse = await post('gemini-2.0-flash:streamGenerateContent?alt=sse', body);
    expect(sse.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const text = await sse.text();
    const events = text.split('\r\n\r\n');
    expect(events.pop()).toBe('');
    expect(events.every((e) => e.startsWith('data: {'))).toBe(true);
    const parsed = events.map((e) => JSON.parse(e.slice(6)) as GenerateContentResponse);

    const array = await post('gemini-2.0-flash:streamGenerateContent', body);
    expect(array.headers.get('content-type')).toMatch(/^application\/json/);
    const items = JSON.parse(await array.text()) as GenerateContentResponse[];
    expect(items.map((i) => i.candidates)).toEqual(parsed.map((p) => p.candidates));
  });

  it('ends with an error event on midStreamError, which the SDK raises as ApiError', async () => {
    mock.setBehaviour({ midStreamError: true });
    const received: string[] = [];
    const err = await fails(
      (async () => {
        for await (const chunk of await ai.models.generateContentStream(params))
          received.push(chunk.text ?? '');
      })(),
    );
    expect(err).toBeInstanceOf(ApiError);
    expect(err.status).toBe(503);
    expect(err.message).toContain('UNAVAILABLE');
    expect(received).toHaveLength(2);
  });

  it('is cut by resetMidStream', async () => {
    mock.setBehaviour({ resetMidStream: true });
    const err = await fails(
      (async () => {
        for await (const chunk of await ai.models.generateContentStream(params)) void chunk;
      })(),
    );
    expect(String(err)).toMatch(/terminated/);
  });
});

describe('countTokens and models', () => {
  it('counts what generateContent reports as promptTokenCount', async () => {
    const contents = 'Count these words for me please';
    const { totalTokens } = await ai.models.countTokens({ model: 'gemini-2.5-pro', contents });
    const generated = await ai.models.generateContent({ model: 'gemini-2.5-pro', contents });
    expect(totalTokens).toBe(generated.usageMetadata?.promptTokenCount);
    const nested = await post('gemini-2.5-pro:countTokens', {
      generateContentRequest: {
        model: 'models/gemini-2.5-pro',
        contents: [{ parts: [{ text: contents }] }],
        systemInstruction: { parts: [{ text: 'Be brief.' }] },
      },
    });
    expect(await nested.json()).toEqual({
      totalTokens: Math.ceil((contents.length + 'Be brief.'.length) / 4),
      promptTokensDetails: [{ modality: 'TEXT', tokenCount: Math.ceil((contents.length + 9) / 4) }],
    });
  });

  it('lists and gets models in Google shape', async () => {
    const names: string[] = [];
    for await (const model of await ai.models.list()) names.push(model.name ?? '');
    expect(names).toEqual(mock.behaviour.geminiModels.map((id) => `models/${id}`));
    const pro = await ai.models.get({ model: 'gemini-2.5-pro' });
    expect(pro).toMatchObject({
      name: 'models/gemini-2.5-pro',
      displayName: 'Gemini 2.5 Pro',
      inputTokenLimit: 1_048_576,
      outputTokenLimit: 65_536,
    });
    const raw = await fetch(`${mock.url}/v1beta/models?pageSize=2&key=${KEY}`);
    const page = (await raw.json()) as {
      models: { supportedGenerationMethods: string[] }[];
      nextPageToken: string;
    };
    expect(page.models).toHaveLength(2);
    expect(page.models[0]?.supportedGenerationMethods).toContain('generateContent');
    expect(page.nextPageToken).toEqual(expect.any(String));
  });
});

describe('function calling with thought signatures (Gemini 3)', () => {
  const model = 'gemini-3-pro-preview';
  const tools: Tool[] = [
    {
      functionDeclarations: [
        {
          name: 'get_weather',
          description: 'Weather by city',
          parameters: {
            type: Type.OBJECT,
            properties: { location: { type: Type.STRING } },
            required: ['location'],
          },
        },
      ],
    },
  ];
  const ask: Content = { role: 'user', parts: [{ text: "What's the weather in Oslo?" }] };

  async function callTurn(): Promise<Content> {
    const res = await ai.models.generateContent({ model, contents: [ask], config: { tools } });
    expect(res.functionCalls).toEqual([
      { id: expect.stringMatching(/^fc_/), name: 'get_weather', args: { location: 'San Francisco, CA' } },
    ]);
    return res.candidates?.[0]?.content as Content;
  }

  const answer = (call: Content): Content[] => [
    ask,
    call,
    { role: 'user', parts: [{ functionResponse: { name: 'get_weather', response: { temperature: '3C' } } }] },
  ];

  it('returns a signed call and answers the round trip that sends the signature back', async () => {
    const call = await callTurn();
    expect(call.parts?.[0]?.thoughtSignature).toEqual(expect.any(String));
    const res = await ai.models.generateContent({ model, contents: answer(call), config: { tools } });
    expect(res.text).toMatch(/^This is a mock reply to: What's the weather in Oslo\?/);
  });

  it('refuses the round trip without the signature, or with one that is not for that call', async () => {
    const call = await callTurn();
    const part = call.parts?.[0] ?? {};
    const unsigned = { ...call, parts: [{ functionCall: part.functionCall }] };
    const missing = await fails(ai.models.generateContent({ model, contents: answer(unsigned) }));
    expect(missing.status).toBe(400);
    expect(missing.message).toContain(
      'Function call is missing a thought_signature in functionCall parts. This is required for tools to work correctly',
    );
    expect(missing.message).toContain('function call `default_api:get_weather` , position 2.');
    const moved = {
      ...call,
      parts: [{ ...part, functionCall: { name: 'get_weather', args: { location: 'Oslo' } } }],
    };
    const corrupted = await fails(ai.models.generateContent({ model, contents: answer(moved) }));
    expect(corrupted.message).toContain('Corrupted thought signature.');
    const skipped = { ...call, parts: [{ ...part, thoughtSignature: 'skip_thought_signature_validator' }] };
    await expect(ai.models.generateContent({ model, contents: answer(skipped) })).resolves.toBeDefined();
    // Gemini 2.5 accepts the same unsigned history.
    await expect(
      ai.models.generateContent({ model: 'gemini-2.5-flash', contents: answer(unsigned) }),
    ).resolves.toBeDefined();
  });
});

describe('errors as Google sends them', () => {
  it('answers an unknown model with 404 NOT_FOUND naming the method', async () => {
    const err = await fails(ai.models.generateContent({ model: 'gemini-9-ultra', contents: 'x' }));
    expect(err).toBeInstanceOf(ApiError);
    expect(err.status).toBe(404);
    expect(JSON.parse(err.message)).toEqual({
      error: {
        code: 404,
        message:
          'models/gemini-9-ultra is not found for API version v1beta, or is not supported for generateContent. Call ListModels to see the list of available models and their supported methods.',
        status: 'NOT_FOUND',
      },
    });
  });

  it('refuses a missing key with 403, a wrong one with 400 API_KEY_INVALID, and takes ?key=', async () => {
    const none = await post('gemini-2.0-flash:generateContent', { contents: hello }, {});
    expect(none.status).toBe(403);
    expect(await none.json()).toMatchObject({ error: { code: 403, status: 'PERMISSION_DENIED' } });
    const err = await fails(
      client('AIza-wrong').models.generateContent({ model: 'gemini-2.0-flash', contents: 'x' }),
    );
    expect(err.status).toBe(400);
    expect(JSON.parse(err.message)).toMatchObject({
      error: {
        message: 'API key not valid. Please pass a valid API key.',
        status: 'INVALID_ARGUMENT',
        details: [expect.objectContaining({ reason: 'API_KEY_INVALID' }), expect.anything()],
      },
    });
    const byQuery = await post(`gemini-2.0-flash:generateContent?key=${KEY}`, { contents: hello }, {});
    expect(byQuery.status).toBe(200);
  });

  it('injects 429 RESOURCE_EXHAUSTED (retry delay in the body, no retry-after) and 503 UNAVAILABLE', async () => {
    mock.setBehaviour({ failureRate: 1, failStatus: 429, retryAfterSeconds: 7 });
    const limited = await post('gemini-2.0-flash:generateContent', { contents: hello });
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBeNull();
    const body = (await limited.json()) as { error: { status: string; details: object[] } };
    expect(body.error.status).toBe('RESOURCE_EXHAUSTED');
    expect(body.error.details).toContainEqual({
      '@type': 'type.googleapis.com/google.rpc.RetryInfo',
      retryDelay: '7s',
    });
    mock.setBehaviour({ failStatus: 503 });
    const err = await fails(ai.models.generateContent({ model: 'gemini-2.0-flash', contents: 'x' }));
    expect(err.status).toBe(503);
    expect(JSON.parse(err.message)).toMatchObject({ error: { code: 503, status: 'UNAVAILABLE' } });
    expect(mock.stats.byPath['/v1beta/models/gemini-2.0-flash:generateContent']).toBe(2);
  });

  it('fails one request by x-mock-fail, and leaves usage out under omitUsage', async () => {
    const failed = await post(
      'gemini-2.0-flash:generateContent',
      { contents: hello },
      {
        'x-goog-api-key': KEY,
        'x-mock-fail': '500',
      },
    );
    expect(failed.status).toBe(500);
    expect(await failed.json()).toMatchObject({ error: { code: 500, status: 'INTERNAL' } });
    mock.setBehaviour({ omitUsage: true });
    const whole = await ai.models.generateContent({ model: 'gemini-2.0-flash', contents: 'x' });
    expect(whole.usageMetadata).toBeUndefined();
    for await (const chunk of await ai.models.generateContentStream({
      model: 'gemini-2.0-flash',
      contents: 'x',
    }))
      expect(chunk.usageMetadata).toBeUndefined();
  });
});
