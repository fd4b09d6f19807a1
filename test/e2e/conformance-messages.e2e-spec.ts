import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  cannotServe,
  EMBEDDING_ROWS,
  expectLogged,
  HUB_WIRE,
  lastUpstream,
  type Matrix,
  MODEL_OF,
  NATIVE_MESSAGES_PATH,
  PNG_BASE64,
  TEXT_ROWS,
  startMatrix,
  TIME_TOOL,
  upstreamCallsFrom,
  upstreamCount,
  UPSTREAM_MODEL,
  WEATHER_TOOL,
} from './conformance-support.js';

/** Conformance matrix, Anthropic Messages clients: every row (provider type), non-stream and stream. */
let m: Matrix;

beforeAll(async () => {
  m = await startMatrix('e2e-conf-messages');
}, 30_000);

afterAll(async () => {
  await m?.close();
});

const tools: Anthropic.Tool[] = [WEATHER_TOOL, TIME_TOOL].map(({ name, description, parameters }) => ({
  name,
  description,
  input_schema: {
    type: 'object',
    properties: { ...parameters.properties },
    required: [...parameters.required],
  },
}));
const inputTokens = (u: Anthropic.Usage): number =>
  u.input_tokens + (u.cache_read_input_tokens ?? 0) + (u.cache_creation_input_tokens ?? 0);
const textOf = (msg: Anthropic.Message): string =>
  msg.content.map((b) => (b.type === 'text' ? b.text : '')).join('');

describe.each(TEXT_ROWS)('messages -> %s', (row) => {
  const model = MODEL_OF[row];
  const base = {
    model,
    max_tokens: 200,
    system: 'Be brief.',
    messages: [{ role: 'user' as const, content: 'Hello matrix messages' }],
  };

  it('answers non-stream with usage, logged and charged exactly', async () => {
    const { data, response } = await m.anthropic.messages.create(base).withResponse();
    expect(data.type).toBe('message');
    expect(data.role).toBe('assistant');
    // A native answer names the upstream's model, as its vendor does; a translated one the model asked.
    const native = NATIVE_MESSAGES_PATH[row];
    expect(data.model).toBe(native === undefined ? model : (UPSTREAM_MODEL[row] ?? model));
    // Claude on the clouds takes the Messages body natively: Vertex's rawPredict, Bedrock's InvokeModel.
    if (native !== undefined)
      expect(lastUpstream(m, native.body).body).toMatchObject({ max_tokens: 200, system: 'Be brief.' });
    expect(textOf(data)).toMatch(/mock reply to: Hello matrix messages/);
    expect(data.stop_reason).toBe('end_turn');
    await expectLogged(m.gw, response.headers.get('x-request-id')!, {
      endpoint: '/v1/messages',
      row,
      stream: false,
      usage: { input: inputTokens(data.usage), output: data.usage.output_tokens },
    });
  });

  it('streams through the SDK helper (finalMessage) with exact usage, logged', async () => {
    const reference = await m.anthropic.messages.create(base);
    const native = NATIVE_MESSAGES_PATH[row]?.stream;
    const streamed = native === undefined ? 0 : upstreamCount(m, native);
    const stream = m.anthropic.messages.stream(base);
    let deltas = 0;
    stream.on('text', () => deltas++);
    const final = await stream.finalMessage();
    const { response } = await stream.withResponse();
    expect(textOf(final)).toBe(textOf(reference));
    expect(deltas).toBeGreaterThan(1);
    expect(final.stop_reason).toBe('end_turn');
    expect(final.usage.output_tokens).toBe(reference.usage.output_tokens);
    // Natively on the stream's own path (Vertex's streamRawPredict, Bedrock's event-stream frames).
    if (native !== undefined) expect(upstreamCount(m, native)).toBe(streamed + 1);
    await expectLogged(m.gw, response.headers.get('x-request-id')!, {
      endpoint: '/v1/messages',
      row,
      stream: true,
      usage: { input: inputTokens(reference.usage), output: reference.usage.output_tokens },
    });
  });

  it('calls tools in parallel, streaming input JSON, then answers the tool results', async () => {
    const ask = {
      ...base,
      tools,
      messages: [{ role: 'user' as const, content: 'Parallel: weather and time in Paris' }],
    };
    if (row === 'perplexity') {
      // Sonar has no tool calling: refused before any upstream call, in shape B.
      const err = (await m.anthropic.messages.create(ask).catch((e: unknown) => e)) as InstanceType<
        typeof Anthropic.APIError
      >;
      expect(err).toBeInstanceOf(Anthropic.BadRequestError);
      expect(err.error).toEqual({
        type: 'error',
        error: { type: 'invalid_request_error', message: expect.stringMatching(/tool/) },
      });
      return;
    }
    const stream = m.anthropic.messages.stream(ask);
    let jsonDeltas = 0;
    stream.on('inputJson', () => jsonDeltas++);
    const final = await stream.finalMessage();
    expect(final.stop_reason).toBe('tool_use');
    const uses = final.content.filter((b): b is Anthropic.ToolUseBlock => b.type === 'tool_use');
    expect(uses.map((u) => u.name).sort()).toEqual(['get_time', 'get_weather']);
    for (const use of uses) expect(use.input).toBeInstanceOf(Object);
    // Gemini sends each function call whole, in one event: one input JSON delta per call.
    if (HUB_WIRE[row] === 'gemini') expect(jsonDeltas).toBe(uses.length);
    else expect(jsonDeltas).toBeGreaterThan(2);

    const answer = await m.anthropic.messages.create({
      ...ask,
      messages: [
        ...ask.messages,
        { role: 'assistant', content: final.content },
        {
          role: 'user',
          content: uses.map((u) => ({
            type: 'tool_result' as const,
            tool_use_id: u.id,
            content: `${u.name}: fine`,
          })),
        },
      ],
    });
    expect(answer.stop_reason).toBe('end_turn');
    expect(textOf(answer)).toMatch(/mock reply/);
  });

  it('carries an inline image to the provider', async () => {
    const data = await m.anthropic.messages.create({
      ...base,
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Describe this picture' },
            { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG_BASE64 } },
          ],
        },
      ],
    });
    expect(textOf(data)).toMatch(/\[1 image\] Describe this picture/);
  });
});

describe.each(EMBEDDING_ROWS)('messages -> %s', (row) => {
  it('is refused cleanly: 400 in shape B naming the model, no upstream call', async () => {
    const calls = upstreamCallsFrom(m);
    const err = await m.anthropic.messages
      .create({ model: MODEL_OF[row], max_tokens: 200, messages: [{ role: 'user', content: 'Hello' }] })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Anthropic.BadRequestError);
    expect((err as InstanceType<typeof Anthropic.BadRequestError>).error).toEqual({
      type: 'error',
      error: { type: 'invalid_request_error', message: cannotServe(row, '/v1/messages') },
    });
    expect(calls()).toBe(0);
  });
});
