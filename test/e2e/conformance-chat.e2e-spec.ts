import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import OpenAI from 'openai';
import {
  AZURE_DEPLOYED_MODEL,
  cannotServe,
  EMBEDDING_ROWS,
  expectLogged,
  HUB_PATH,
  HUB_WIRE,
  lastUpstream,
  type Matrix,
  MODEL_OF,
  PNG_BASE64,
  TEXT_ROWS,
  startMatrix,
  TIME_TOOL,
  upstreamCallsFrom,
  UPSTREAM_MODEL,
  WEATHER_TOOL,
} from './conformance-support.js';

/** Conformance matrix, chat-completions clients: every row (provider type), non-stream and stream. */
let m: Matrix;

beforeAll(async () => {
  m = await startMatrix('e2e-conf-chat');
}, 30_000);

afterAll(async () => {
  await m?.close();
});

const messages = (text: string): OpenAI.ChatCompletionMessageParam[] => [
  { role: 'system', content: 'Be brief.' },
  { role: 'user', content: text },
];
const tools: OpenAI.ChatCompletionTool[] = [WEATHER_TOOL, TIME_TOOL].map((f) => ({
  type: 'function',
  function: { ...f, parameters: { ...f.parameters } },
}));

describe.each(TEXT_ROWS)('chat -> %s', (row) => {
  const model = MODEL_OF[row];
  const wire = HUB_WIRE[row];

  it('answers non-stream with usage, logged and charged exactly', async () => {
    const { data, response } = await m.openai.chat.completions
      .create({ model, messages: messages('Hello matrix chat') })
      .withResponse();
    expect(data.object).toBe('chat.completion');
    // The chat format names the model that answered, as the upstream names it (Gemini's
    // `modelVersion`, Claude's `model`: the upstream id); Azure names the model its deployment
    // runs; Converse names none, so the model asked stands in.
    expect(data.model).toBe(
      row === 'azure-openai'
        ? AZURE_DEPLOYED_MODEL
        : wire === 'converse'
          ? model
          : (UPSTREAM_MODEL[row] ?? model),
    );
    expect(data.choices[0]!.message.content).toMatch(/mock reply to: Hello matrix chat/);
    expect(data.choices[0]!.finish_reason).toBe('stop');
    if (row === 'perplexity') expect((data as unknown as { citations: unknown }).citations).toBeDefined();
    await expectLogged(m.gw, response.headers.get('x-request-id')!, {
      endpoint: '/v1/chat/completions',
      row,
      stream: false,
      usage: { input: data.usage!.prompt_tokens, output: data.usage!.completion_tokens },
    });
  });

  it('streams through the SDK helper (finalChatCompletion) with usage when asked', async () => {
    const final = await m.openai.chat.completions
      .stream({ model, messages: messages('Hello matrix chat'), stream_options: { include_usage: true } })
      .finalChatCompletion();
    expect(final.choices[0]!.message.content).toMatch(/mock reply to: Hello matrix chat/);
    expect(final.choices[0]!.finish_reason).toBe('stop');
    expect(final.usage!.prompt_tokens).toBeGreaterThan(0);
  });

  it('streams deltas without usage when not asked, yet logs the exact usage', async () => {
    const reference = await m.openai.chat.completions.create({ model, messages: messages('Usage unasked') });
    const { data: stream, response } = await m.openai.chat.completions
      .create({ model, stream: true, messages: messages('Usage unasked') })
      .withResponse();
    let text = '';
    let deltas = 0;
    for await (const chunk of stream) {
      // Perplexity itself puts usage on its last chunk, asked or not; the passthrough keeps that.
      if (row !== 'perplexity') expect('usage' in chunk).toBe(false);
      const piece = chunk.choices[0]?.delta.content;
      if (piece) {
        text += piece;
        deltas++;
      }
    }
    expect(text).toBe(reference.choices[0]!.message.content);
    expect(deltas).toBeGreaterThan(1);
    // The gateway asks OpenAI-style upstreams for usage; Perplexity sends it on every chunk unasked.
    // Anthropic, Gemini and Converse streams carry usage unasked.
    if (wire === 'openai') {
      const sent = lastUpstream(m, HUB_PATH[row]).body;
      if (row === 'perplexity') expect(sent.stream_options).toBeUndefined();
      else expect(sent.stream_options).toEqual({ include_usage: true });
    }
    await expectLogged(m.gw, response.headers.get('x-request-id')!, {
      endpoint: '/v1/chat/completions',
      row,
      stream: true,
      usage: { input: reference.usage!.prompt_tokens, output: reference.usage!.completion_tokens },
    });
  });

  it('calls tools in parallel, streaming argument deltas, then answers the tool results', async () => {
    const ask = messages('Use parallel lookups: weather and time in Paris');
    if (row === 'perplexity') {
      // Sonar has no tool calling: its own 400 passes through to the client.
      const err = await m.openai.chat.completions
        .create({ model, messages: ask, tools })
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(OpenAI.BadRequestError);
      expect((err as InstanceType<typeof OpenAI.APIError>).error).toMatchObject({ param: 'tools' });
      return;
    }
    const stream = m.openai.chat.completions.stream({ model, messages: ask, tools });
    let argumentDeltas = 0;
    stream.on('chunk', (chunk) => {
      for (const call of chunk.choices[0]?.delta.tool_calls ?? [])
        if (call.function?.arguments) argumentDeltas++;
    });
    const final = await stream.finalChatCompletion();
    const message = final.choices[0]!.message;
    expect(final.choices[0]!.finish_reason).toBe('tool_calls');
    expect(message.tool_calls!.map((c) => (c.type === 'function' ? c.function.name : '')).sort()).toEqual([
      'get_time',
      'get_weather',
    ]);
    const calls = message.tool_calls!.filter((c) => c.type === 'function');
    for (const call of calls) expect(JSON.parse(call.function.arguments)).toBeInstanceOf(Object);
    // Gemini sends each function call whole, in one event: one arguments delta per call.
    if (wire === 'gemini') expect(argumentDeltas).toBe(calls.length);
    else expect(argumentDeltas).toBeGreaterThan(2);

    const answer = await m.openai.chat.completions.create({
      model,
      tools,
      messages: [
        ...ask,
        { role: 'assistant', content: message.content ?? null, tool_calls: message.tool_calls },
        ...calls.map((c) => ({
          role: 'tool' as const,
          tool_call_id: c.id,
          content: `${c.function.name}: fine`,
        })),
      ],
    });
    expect(answer.choices[0]!.finish_reason).toBe('stop');
    expect(answer.choices[0]!.message.content).toMatch(/mock reply/);
  });

  it('carries an inline image to the provider', async () => {
    const data = await m.openai.chat.completions.create({
      model,
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Describe this picture' },
            { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG_BASE64}` } },
          ],
        },
      ],
    });
    expect(data.choices[0]!.message.content).toMatch(/\[1 image\] Describe this picture/);
    const sent = lastUpstream(m, HUB_PATH[row]).body;
    if (wire === 'anthropic') {
      const blocks = (sent.messages as { content: { type: string }[] }[])[0]!.content;
      expect(blocks.map((b) => b.type)).toEqual(['text', 'image']);
    }
    // Converse takes an image as its bytes, with their format.
    if (wire === 'converse')
      expect((sent.messages as { content: unknown[] }[])[0]!.content).toEqual([
        { text: 'Describe this picture' },
        { image: { format: 'png', source: { bytes: PNG_BASE64 } } },
      ]);
  });
});

describe.each(EMBEDDING_ROWS)('chat -> %s', (row) => {
  it('is refused cleanly: 400 in shape A naming the model, no upstream call', async () => {
    const calls = upstreamCallsFrom(m);
    const err = await m.openai.chat.completions
      .create({ model: MODEL_OF[row], messages: messages('Hello matrix chat') })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.BadRequestError);
    expect((err as InstanceType<typeof OpenAI.BadRequestError>).error).toEqual({
      message: cannotServe(row, '/v1/chat/completions'),
      type: 'invalid_request_error',
      param: 'model',
      code: 'invalid_request',
    });
    expect(calls()).toBe(0);
  });
});

describe('chat passthrough fidelity', () => {
  it('keeps fields the gateway does not model and forwards OpenAI-Beta to OpenAI providers', async () => {
    await m.openai.chat.completions.create(
      {
        model: MODEL_OF.openai,
        messages: messages('Fidelity'),
        prompt_cache_key: 'abc',
        metadata: { team: 'x' },
        store: false,
      },
      { headers: { 'OpenAI-Beta': 'assistants=v2' } },
    );
    const sent = lastUpstream(m, '/v1/chat/completions');
    expect(sent.body).toMatchObject({ prompt_cache_key: 'abc', metadata: { team: 'x' }, store: false });
    expect(sent.headers['openai-beta']).toBe('assistants=v2');
  });
});

describe('cached prompt tokens', () => {
  it.each(['openai', 'anthropic'] as const)(
    'reach a chat client and the log from a %s provider',
    async (type) => {
      m.gw.mock.setBehaviour({ cachedTokens: 2 });
      try {
        const { data, response } = await m.openai.chat.completions
          .create({ model: MODEL_OF[type], messages: messages('Cache me if you can') })
          .withResponse();
        expect(data.usage!.prompt_tokens_details!.cached_tokens).toBe(2);
        const row = await m.gw.logRow(response.headers.get('x-request-id')!);
        expect(Number(row.cached_tokens)).toBe(2);
        expect(Number(row.input_tokens)).toBe(data.usage!.prompt_tokens);
      } finally {
        m.gw.mock.reset();
      }
    },
  );
});
