import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import OpenAI from 'openai';
import {
  AZURE_DEPLOYED_MODEL,
  cannotServe,
  EMBEDDING_ROWS,
  expectLogged,
  HUB_WIRE,
  type Matrix,
  MODEL_OF,
  PNG_BASE64,
  TEXT_ROWS,
  startMatrix,
  upstreamCallsFrom,
  WEATHER_TOOL,
} from './conformance-support.js';

/** Conformance matrix, Responses API clients: every row (provider type), non-stream and stream. */
let m: Matrix;

beforeAll(async () => {
  m = await startMatrix('e2e-conf-responses');
}, 30_000);

afterAll(async () => {
  await m?.close();
});

const tools: OpenAI.Responses.FunctionTool[] = [
  { type: 'function', ...WEATHER_TOOL, parameters: { ...WEATHER_TOOL.parameters }, strict: false },
];

describe.each(TEXT_ROWS)('responses -> %s', (row) => {
  const model = MODEL_OF[row];
  const base = { model, instructions: 'Be brief.', input: 'Hello matrix responses' };

  it('answers non-stream with usage, logged and charged exactly', async () => {
    const { data, response } = await m.openai.responses.create(base).withResponse();
    expect(data.object).toBe('response');
    expect(data.status).toBe('completed');
    // Azure names the model its deployment runs; the others answer with the model asked.
    expect(data.model).toBe(row === 'azure-openai' ? AZURE_DEPLOYED_MODEL : model);
    expect(data.output_text).toMatch(/mock reply to: Hello matrix responses/);
    await expectLogged(m.gw, response.headers.get('x-request-id')!, {
      endpoint: '/v1/responses',
      row,
      stream: false,
      usage: { input: data.usage!.input_tokens, output: data.usage!.output_tokens },
    });
  });

  it('streams through the SDK helper (finalResponse) with the same text and usage, logged', async () => {
    const reference = await m.openai.responses.create(base);
    const stream = m.openai.responses.stream(base);
    let deltas = 0;
    stream.on('response.output_text.delta', () => deltas++);
    const final = await stream.finalResponse();
    expect(final.status).toBe('completed');
    expect(final.output_text).toBe(reference.output_text);
    expect(deltas).toBeGreaterThan(1);
    expect(final.usage).toMatchObject({
      input_tokens: reference.usage!.input_tokens,
      output_tokens: reference.usage!.output_tokens,
    });
    const { data: raw, response } = await m.openai.responses.create({ ...base, stream: true }).withResponse();
    const types: string[] = [];
    for await (const event of raw) types.push(event.type);
    expect(types[0]).toBe('response.created');
    expect(types.at(-1)).toBe('response.completed');
    await expectLogged(m.gw, response.headers.get('x-request-id')!, {
      endpoint: '/v1/responses',
      row,
      stream: true,
      usage: { input: reference.usage!.input_tokens, output: reference.usage!.output_tokens },
    });
  });

  it('calls a tool with streamed arguments, then answers its output', async () => {
    const ask = { model, tools, input: 'What is the weather in Paris?' };
    if (row === 'perplexity') {
      // Sonar has no tool calling: refused before any upstream call, in shape A.
      const err = await m.openai.responses.create(ask).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(OpenAI.BadRequestError);
      expect((err as InstanceType<typeof OpenAI.APIError>).error).toMatchObject({
        type: 'invalid_request_error',
        param: 'tools',
      });
      return;
    }
    const stream = m.openai.responses.stream(ask);
    let argumentDeltas = 0;
    stream.on('response.function_call_arguments.delta', () => argumentDeltas++);
    const final = await stream.finalResponse();
    const call = final.output.find((o) => o.type === 'function_call') as
      OpenAI.Responses.ResponseFunctionToolCall | undefined;
    expect(call).toMatchObject({ name: 'get_weather' });
    expect(JSON.parse(call!.arguments)).toEqual({ location: 'San Francisco, CA' });
    // Gemini sends each function call whole, in one event: one arguments delta per call.
    expect(argumentDeltas).toBeGreaterThan(HUB_WIRE[row] === 'gemini' ? 0 : 1);

    const answer = await m.openai.responses.create({
      model,
      tools,
      input: [
        { role: 'user', content: ask.input },
        { type: 'function_call', call_id: call!.call_id, name: call!.name, arguments: call!.arguments },
        { type: 'function_call_output', call_id: call!.call_id, output: 'sunny' },
      ],
    });
    expect(answer.status).toBe('completed');
    expect(answer.output_text).toMatch(/mock reply/);
  });

  it('carries an inline image to the provider', async () => {
    const data = await m.openai.responses.create({
      model,
      input: [
        {
          role: 'user',
          content: [
            { type: 'input_text', text: 'Describe this picture' },
            { type: 'input_image', image_url: `data:image/png;base64,${PNG_BASE64}`, detail: 'auto' },
          ],
        },
      ],
    });
    expect(data.output_text).toMatch(/\[1 image\] Describe this picture/);
  });
});

describe.each(EMBEDDING_ROWS)('responses -> %s', (row) => {
  it('is refused cleanly: 400 in shape A naming the model, no upstream call', async () => {
    const calls = upstreamCallsFrom(m);
    const err = await m.openai.responses
      .create({ model: MODEL_OF[row], input: 'Hello matrix responses' })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.BadRequestError);
    expect((err as InstanceType<typeof OpenAI.BadRequestError>).error).toMatchObject({
      message: cannotServe(row, '/v1/responses'),
      type: 'invalid_request_error',
      param: 'model',
    });
    expect(calls()).toBe(0);
  });
});
