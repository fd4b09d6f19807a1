import {
  ApiError,
  type Content,
  type GenerateContentParameters,
  type GenerateContentResponse,
  GoogleGenAI,
  HarmBlockThreshold,
  HarmCategory,
  type Tool,
  Type,
} from '@google/genai';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mockTokensOf } from '#libs/testing';
import {
  ALL_MODELS,
  cannotServe,
  EMBEDDING_ROWS,
  expectLogged,
  GEMINI_UPSTREAM,
  HUB_PATH,
  HUB_WIRE,
  lastUpstream,
  type Matrix,
  matrixConfig,
  MODEL_OF,
  PNG_BASE64,
  providerOf,
  TEXT_ROWS,
  type TextRow,
  startMatrix,
  TIME_TOOL,
  upstreamCallsFrom,
  upstreamCount,
  UPSTREAM_COUNT_PATH,
  WEATHER_TOOL,
} from './conformance-support.js';

/**
 * Conformance matrix, Gemini API clients (`@google/genai`): every row (provider type), Gemini
 * models natively (the body passes through, to Google's AI Studio or Vertex AI) and the others
 * translated through the hub.
 */
let m: Matrix;
let ai: GoogleGenAI;

/** A model of the catalog outside group default: no default key may list, get or call it. */
const HIDDEN = 'm-hidden';
const GENERATE = '/v1beta/models/{model}:generateContent';
const COUNT = '/v1beta/models/{model}:countTokens';

/** The SDK hides most HTTP responses: the last one's headers are taken on the way past. */
let lastHeaders: Headers | null = null;
const seeingHeaders: typeof fetch = async (input, init) => {
  const res = await fetch(input, init);
  lastHeaders = res.headers;
  return res;
};
const lastRequestId = (): string => lastHeaders!.get('x-request-id')!;

/**
 * Google's v1beta is asked for (the SDK defaults to v1). Jest's VM realm hides Node's undici
 * dispatcher from the SDK: handing it a fetch skips that lookup.
 */
const client = (apiKey: string): GoogleGenAI =>
  new GoogleGenAI({
    apiKey,
    httpOptions: { baseUrl: m.gw.edgeUrl, apiVersion: 'v1beta', fetch: seeingHeaders },
  });

beforeAll(async () => {
  m = await startMatrix('e2e-conf-gemini', (urls) => {
    const config = matrixConfig(urls);
    const [openai, ...others] = config.providers;
    return {
      ...config,
      providers: [{ ...openai!, models: [...openai!.models, HIDDEN] }, ...others],
      models: [...config.models, { ...config.models[0]!, id: HIDDEN }],
      groups: { ...config.groups, hidden: [HIDDEN] },
    };
  });
  ai = client(m.key);
}, 30_000);

afterAll(async () => {
  await m?.close();
});

const tools: Tool[] = [
  {
    functionDeclarations: [
      // Full JSON Schema, as Gemini CLI declares its tools.
      {
        name: WEATHER_TOOL.name,
        description: WEATHER_TOOL.description,
        parametersJsonSchema: WEATHER_TOOL.parameters,
      },
      // Google's OpenAPI subset, upper-case type names, as the SDK's `Type` writes them.
      {
        name: TIME_TOOL.name,
        description: TIME_TOOL.description,
        parameters: { type: Type.OBJECT, properties: { city: { type: Type.STRING } }, required: ['city'] },
      },
    ],
  },
];

/** Google's error body, as the SDK keeps it in the ApiError's message. */
function googleError(err: unknown): { error: { code: number; message: string; status: string } } {
  expect(err).toBeInstanceOf(ApiError);
  return JSON.parse((err as ApiError).message) as {
    error: { code: number; message: string; status: string };
  };
}

const failure = (p: Promise<unknown>): Promise<unknown> =>
  p.then(
    () => {
      throw new Error('expected the request to fail');
    },
    (e: unknown) => e,
  );

/** Output tokens as the log counts them: Gemini bills thoughts as output, apart from the candidates. */
const outputOf = (res: GenerateContentResponse): number =>
  res.usageMetadata!.candidatesTokenCount! + (res.usageMetadata!.thoughtsTokenCount ?? 0);

/** Rows whose Gemini models take a Gemini client's body natively. */
const NATIVE: ReadonlySet<TextRow> = new Set(['gemini', 'vertex-gemini']);

describe.each(TEXT_ROWS)('generateContent -> %s', (row) => {
  const model = MODEL_OF[row];
  const native = NATIVE.has(row);
  const wire = HUB_WIRE[row];
  const hello: GenerateContentParameters = { model, contents: 'Hello matrix gemini' };

  it('answers non-stream with exact usageMetadata, logged and charged exactly', async () => {
    const res = await ai.models.generateContent(hello);
    const requestId = lastRequestId();
    expect(res.text).toMatch(/mock reply to: Hello matrix gemini/);
    expect(res.candidates).toHaveLength(1);
    expect(res.candidates![0]).toMatchObject({ finishReason: 'STOP', index: 0, content: { role: 'model' } });
    // A native answer names the upstream model, as Google does; a translated one the model asked.
    expect(res.modelVersion).toBe(native ? GEMINI_UPSTREAM : model);
    const usage = res.usageMetadata!;
    // Gemini 2.5 Flash thinks unasked; the other mocks do not think.
    if (native) expect(usage.thoughtsTokenCount).toBeGreaterThan(0);
    else expect(usage.thoughtsTokenCount).toBeUndefined();
    expect(usage.candidatesTokenCount).toBe(mockTokensOf(res.text!));
    expect(usage.totalTokenCount).toBe(usage.promptTokenCount! + outputOf(res));
    await expectLogged(m.gw, requestId, {
      endpoint: GENERATE,
      row,
      stream: false,
      usage: { input: usage.promptTokenCount!, output: outputOf(res) },
    });
    // A plain request loses nothing in translation; Anthropic gets its prompt marked for caching.
    const adjusted = wire === 'anthropic' ? ['added cache_control breakpoints (messages)'] : [];
    expect((await m.gw.logRow(requestId)).adjustments).toEqual(adjusted);
    expect(lastHeaders!.get('x-gateway-adjustments')).toBe(adjusted.length > 0 ? adjusted.join('; ') : null);
  });

  it('streams with alt=sse: the text assembled, the last chunk finished with the usage, logged', async () => {
    const reference = await ai.models.generateContent(hello);
    const chunks: GenerateContentResponse[] = [];
    for await (const chunk of await ai.models.generateContentStream(hello)) chunks.push(chunk);
    const requestId = lastRequestId();
    expect(chunks.length).toBeGreaterThan(2);
    expect(chunks.map((c) => c.text ?? '').join('')).toBe(reference.text);
    const last = chunks.at(-1)!;
    expect(last.candidates![0]!.finishReason).toBe('STOP');
    expect(last.usageMetadata).toEqual(reference.usageMetadata);
    expect(chunks.slice(0, -1).every((c) => c.candidates![0]!.finishReason === undefined)).toBe(true);
    await expectLogged(m.gw, requestId, {
      endpoint: GENERATE,
      row,
      stream: true,
      usage: { input: reference.usageMetadata!.promptTokenCount!, output: outputOf(reference) },
    });
  });

  it('calls both kinds of declared functions, then answers their functionResponses', async () => {
    const ask: Content = {
      role: 'user',
      parts: [{ text: 'Use parallel lookups: weather and time in Paris' }],
    };
    if (row === 'perplexity') {
      // Sonar has no tool calling: refused before any upstream call, in Google's shape.
      const upstreamCalls = (): number => m.gw.mock.stats.byPath[HUB_PATH.perplexity] ?? 0;
      const before = upstreamCalls();
      const err = await failure(ai.models.generateContent({ model, contents: [ask], config: { tools } }));
      expect(upstreamCalls()).toBe(before);
      expect((err as ApiError).status).toBe(400);
      expect(googleError(err).error).toEqual({
        code: 400,
        status: 'INVALID_ARGUMENT',
        message: expect.stringMatching(/tool/),
      });
      return;
    }
    const call = await ai.models.generateContent({ model, contents: [ask], config: { tools } });
    expect(call.candidates![0]!.finishReason).toBe('STOP');
    const calls = call.functionCalls ?? [];
    expect(calls.map((c) => [c.name, c.args]).sort()).toEqual([
      // Arguments filled from each schema: the OpenAPI one reached the provider as a schema it reads.
      ['get_time', { city: 'San Francisco, CA' }],
      ['get_weather', { location: 'San Francisco, CA' }],
    ]);
    for (const c of calls) expect(c.id).toEqual(expect.any(String));

    const answer = await ai.models.generateContent({
      model,
      config: { tools },
      contents: [
        ask,
        call.candidates![0]!.content!,
        {
          role: 'user',
          parts: calls.map((c) => ({
            functionResponse: { id: c.id, name: c.name, response: { output: `${c.name}: fine` } },
          })),
        },
      ],
    });
    expect(answer.functionCalls).toBeUndefined();
    expect(answer.text).toMatch(/mock reply/);
    expect(answer.candidates![0]!.finishReason).toBe('STOP');
  });

  it('carries the system instruction to the provider', async () => {
    await ai.models.generateContent({ ...hello, config: { systemInstruction: 'Answer in one line.' } });
    const sent = lastUpstream(m, HUB_PATH[row]).body;
    if (wire === 'gemini') {
      expect(sent.systemInstruction).toEqual({ parts: [{ text: 'Answer in one line.' }], role: 'user' });
    } else if (wire === 'anthropic') {
      // Marked for caching by the gateway (Anthropic caches only what is marked).
      expect(sent.system).toEqual([
        { type: 'text', text: 'Answer in one line.', cache_control: { type: 'ephemeral' } },
      ]);
      expect(sent.messages).toEqual([
        { role: 'user', content: [expect.objectContaining({ type: 'text', text: 'Hello matrix gemini' })] },
      ]);
    } else if (wire === 'converse') {
      expect(sent.system).toEqual([{ text: 'Answer in one line.' }]);
      expect(sent.messages).toEqual([{ role: 'user', content: [{ text: 'Hello matrix gemini' }] }]);
    } else {
      expect((sent.messages as unknown[])[0]).toEqual({ role: 'system', content: 'Answer in one line.' });
    }
  });

  it('carries an inline image to the provider', async () => {
    const res = await ai.models.generateContent({
      model,
      contents: [
        {
          role: 'user',
          parts: [
            { text: 'Describe this picture' },
            { inlineData: { mimeType: 'image/png', data: PNG_BASE64 } },
          ],
        },
      ],
    });
    expect(res.text).toMatch(/\[1 image\] Describe this picture/);
    const sent = JSON.stringify(lastUpstream(m, HUB_PATH[row]).body);
    expect(sent).toContain(PNG_BASE64);
  });

  it('counts tokens: upstream at a Gemini provider, here for the others; logged, never charged', async () => {
    const upstream = UPSTREAM_COUNT_PATH[row];
    const counted = (): number => (upstream === undefined ? 0 : upstreamCount(m, upstream));
    const before = counted();
    const { totalTokens } = await ai.models.countTokens({
      model,
      contents: 'Count these words for me please',
    });
    const requestId = lastRequestId();
    expect(totalTokens).toBeGreaterThan(0);
    expect(counted()).toBe(before + (upstream === undefined ? 0 : 1));
    if (upstream !== undefined) {
      // The mock counts what its generateContent reports as the prompt.
      const generated = await ai.models.generateContent({
        model,
        contents: 'Count these words for me please',
      });
      expect(totalTokens).toBe(generated.usageMetadata!.promptTokenCount);
    }
    const logged = await m.gw.logRow(requestId);
    expect(logged).toMatchObject({ endpoint: COUNT, model, status: 200, error_code: null, stream: false });
    expect(logged.provider_id).toBe(upstream === undefined ? null : providerOf(row));
    expect(Number(logged.cost_nanos)).toBe(0);
  });
});

describe.each(EMBEDDING_ROWS)('generateContent -> %s', (row) => {
  it('is refused cleanly: 400 INVALID_ARGUMENT naming the model, no upstream call', async () => {
    const calls = upstreamCallsFrom(m);
    const err = await failure(
      ai.models.generateContent({ model: MODEL_OF[row], contents: 'Hello matrix gemini' }),
    );
    expect((err as ApiError).status).toBe(400);
    expect(googleError(err).error).toEqual({
      code: 400,
      status: 'INVALID_ARGUMENT',
      message: cannotServe(row, GENERATE),
    });
    expect(calls()).toBe(0);
  });
});

describe('what translation records, as the client and the log see it', () => {
  /** A turn 2 as Gemini CLI sends it: the model's signed call, its response, a question. */
  const signedHistory: Content[] = [
    { role: 'user', parts: [{ text: 'What is the weather in Paris?' }] },
    {
      role: 'model',
      parts: [
        { text: 'Let me look.', thought: true },
        {
          functionCall: { id: 'get_weather_1', name: 'get_weather', args: { location: 'Paris' } },
          thoughtSignature: 'c2lnbmVkIGJ5IGdlbWluaQ==',
        },
      ],
    },
    {
      role: 'user',
      parts: [
        { functionResponse: { id: 'get_weather_1', name: 'get_weather', response: { output: 'sunny' } } },
      ],
    },
  ];

  it.each(TEXT_ROWS.filter((r) => !NATIVE.has(r) && r !== 'perplexity'))(
    'a signed Gemini history to %s: thoughts and signatures dropped, recorded in header and log',
    async (row) => {
      const res = await ai.models.generateContent({
        model: MODEL_OF[row],
        contents: signedHistory,
        config: {
          tools,
          safetySettings: [
            { category: HarmCategory.HARM_CATEGORY_HARASSMENT, threshold: HarmBlockThreshold.BLOCK_NONE },
          ],
        },
      });
      expect(res.text).toMatch(/mock reply/);
      const logged = await m.gw.logRow(lastRequestId());
      expect(logged.adjustments).toEqual([
        'dropped safetySettings',
        'dropped contents[].parts[].thought (1 parts)',
        'dropped contents[].parts[].thoughtSignature (1 parts)',
        // Anthropic caches only what is marked: the gateway marks the stable prefix.
        ...(HUB_WIRE[row] === 'anthropic' ? ['added cache_control breakpoints (tools, messages)'] : []),
      ]);
      expect(lastHeaders!.get('x-gateway-adjustments')).toBe(logged.adjustments.join('; '));
      const sent = JSON.stringify(lastUpstream(m, HUB_PATH[row]).body);
      expect(sent).not.toContain('c2lnbmVkIGJ5IGdlbWluaQ==');
      expect(sent).not.toContain('Let me look.');
    },
  );

  it.each([...NATIVE])('the same history to %s passes through whole, with nothing recorded', async (row) => {
    const res = await ai.models.generateContent({ model: MODEL_OF[row], contents: signedHistory });
    expect(res.text).toMatch(/mock reply/);
    expect(lastHeaders!.get('x-gateway-adjustments')).toBeNull();
    expect((await m.gw.logRow(lastRequestId())).adjustments).toEqual([]);
    expect(lastUpstream(m, HUB_PATH[row]).body.contents).toEqual(signedHistory);
  });
});

describe('models', () => {
  it("lists only the key's group's models, each named models/<id>", async () => {
    const names: string[] = [];
    for await (const model of await ai.models.list()) names.push(model.name!);
    expect(names.sort()).toEqual(ALL_MODELS.map((id) => `models/${id}`).sort());
  });

  it('gets one model, and refuses one outside the group as unknown', async () => {
    const one = await ai.models.get({ model: MODEL_OF.anthropic });
    expect(one).toMatchObject({
      name: `models/${MODEL_OF.anthropic}`,
      supportedActions: expect.arrayContaining(['generateContent', 'countTokens']),
    });
    const err = await failure(ai.models.get({ model: HIDDEN }));
    expect((err as ApiError).status).toBe(404);
    expect(googleError(err).error).toMatchObject({ code: 404, status: 'NOT_FOUND' });
  });
});

describe('errors in Google shape', () => {
  const post = (path: string, body: unknown, headers: Record<string, string> = { 'x-goog-api-key': m.key }) =>
    fetch(`${m.gw.edgeUrl}/v1beta/models/${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    });
  const hello = { contents: [{ role: 'user', parts: [{ text: 'Hello' }] }] };

  it('an unknown model is the SDK ApiError 404 NOT_FOUND', async () => {
    const err = await failure(ai.models.generateContent({ model: 'no-such-model', contents: 'x' }));
    expect((err as ApiError).status).toBe(404);
    expect(googleError(err)).toEqual({
      error: { code: 404, status: 'NOT_FOUND', message: expect.stringContaining('no-such-model') },
    });
  });

  it("a model outside the key's group is 403 PERMISSION_DENIED", async () => {
    const err = await failure(ai.models.generateContent({ model: HIDDEN, contents: 'x' }));
    expect((err as ApiError).status).toBe(403);
    expect(googleError(err)).toEqual({
      error: { code: 403, status: 'PERMISSION_DENIED', message: expect.stringContaining(HIDDEN) },
    });
  });

  it('a bad key is 401 UNAUTHENTICATED', async () => {
    const err = await failure(
      client('sk-not-a-key').models.generateContent({ model: MODEL_OF.gemini, contents: 'x' }),
    );
    expect((err as ApiError).status).toBe(401);
    expect(googleError(err)).toEqual({
      error: { code: 401, status: 'UNAUTHENTICATED', message: expect.any(String) },
    });
  });

  it('takes the key in ?key= (and no key at all is 401)', async () => {
    const res = await post(`${MODEL_OF.gemini}:generateContent?key=${m.key}`, hello, {});
    expect(res.status).toBe(200);
    const body = (await res.json()) as GenerateContentResponse;
    expect(body.candidates![0]!.content!.parts!.map((p) => p.text ?? '').join('')).toMatch(
      /mock reply to: Hello/,
    );
    const listed = await fetch(`${m.gw.edgeUrl}/v1beta/models?key=${m.key}`);
    expect(listed.status).toBe(200);
    const none = await post(`${MODEL_OF.gemini}:generateContent`, hello, {});
    expect(none.status).toBe(401);
    expect(await none.json()).toMatchObject({ error: { code: 401, status: 'UNAUTHENTICATED' } });
  });

  it('takes the key as a bearer token', async () => {
    const res = await post(`${MODEL_OF.openai}:generateContent`, hello, { authorization: `Bearer ${m.key}` });
    expect(res.status).toBe(200);
  });

  it('an unknown method (embedContent) is 404 NOT_FOUND', async () => {
    const res = await post(`${MODEL_OF.gemini}:embedContent`, { content: { parts: [{ text: 'x' }] } });
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({
      error: { code: 404, status: 'NOT_FOUND', message: expect.stringContaining('embedContent') },
    });
  });

  it('streamGenerateContent without alt=sse is a 400 saying to ask for alt=sse', async () => {
    // The mock's per-path counts (its probes are GETs of /v1beta/models, counted apart).
    const streamed = (): number =>
      m.gw.mock.stats.byPath[`/v1beta/models/${GEMINI_UPSTREAM}:streamGenerateContent`] ?? 0;
    const before = streamed();
    const res = await post(`${MODEL_OF.gemini}:streamGenerateContent`, hello);
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({
      error: { code: 400, status: 'INVALID_ARGUMENT', message: expect.stringContaining('alt=sse') },
    });
    expect(streamed()).toBe(before);
  });
});
