import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import OpenAI, { type APIError } from 'openai';
import { startMockProvider, type MockProvider } from '../../index.js';

let mock: MockProvider;
let client: OpenAI;

beforeAll(async () => {
  mock = await startMockProvider({ port: 0 });
  client = new OpenAI({ baseURL: `${mock.url}/v1`, apiKey: 'x', maxRetries: 0 });
});
afterAll(() => mock.close());
beforeEach(() => mock.reset());

const weatherTool = {
  type: 'function' as const,
  function: {
    name: 'get_weather',
    parameters: {
      type: 'object',
      properties: { location: { type: 'string' }, unit: { type: 'string', enum: ['c', 'f'] } },
      required: ['location', 'unit'],
    },
  },
};

describe('chat completions', () => {
  it('answers non-stream with a deterministic chat.completion', async () => {
    const completion = await client.chat.completions.create({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'Hello there' }],
    });
    expect(completion).toMatchObject({
      object: 'chat.completion',
      model: 'gpt-4o-mini',
      system_fingerprint: 'fp_mock',
      service_tier: 'default',
      choices: [
        {
          index: 0,
          finish_reason: 'stop',
          logprobs: null,
          message: { role: 'assistant', refusal: null, annotations: [] },
        },
      ],
    });
    expect(completion.id).toMatch(/^chatcmpl-/);
    expect(typeof completion.created).toBe('number');
    const text = completion.choices[0]?.message.content ?? '';
    expect(text.startsWith('This is a mock reply to: Hello there')).toBe(true);
    const usage = completion.usage;
    expect(usage?.completion_tokens).toBe(Math.ceil(text.length / 4));
    expect(usage?.prompt_tokens).toBe(Math.ceil('Hello there'.length / 4));
    expect(usage?.total_tokens).toBe((usage?.prompt_tokens ?? 0) + (usage?.completion_tokens ?? 0));
    expect(usage?.prompt_tokens_details).toEqual({ cached_tokens: 0, audio_tokens: 0 });
    expect(usage?.completion_tokens_details?.reasoning_tokens).toBe(0);
  });

  it('reports audio output tokens on top of the text ones when told to', async () => {
    mock.setBehaviour({ audioOutputTokens: 1000 });
    const completion = await client.chat.completions.create({
      model: 'gpt-4o-audio-preview',
      messages: [{ role: 'user', content: 'Hello there' }],
    });
    const text = completion.choices[0]?.message.content ?? '';
    expect(completion.usage?.completion_tokens).toBe(Math.ceil(text.length / 4) + 1000);
    expect(completion.usage?.completion_tokens_details?.audio_tokens).toBe(1000);
  });

  it('streams role, chunkCount deltas, finish, usage only when asked, and [DONE]', async () => {
    mock.setBehaviour({ chunkCount: 5 });
    const plain = await client.chat.completions.create({
      model: 'm',
      messages: [{ role: 'user', content: 'Hi' }],
    });
    const stream = await client.chat.completions.create({
      model: 'm',
      messages: [{ role: 'user', content: 'Hi' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    const chunks: OpenAI.Chat.Completions.ChatCompletionChunk[] = [];
    for await (const chunk of stream) chunks.push(chunk);
    expect(chunks[0]?.choices[0]?.delta).toEqual({ role: 'assistant', content: '', refusal: null });
    const contents = chunks.slice(1, -2).map((c) => c.choices[0]?.delta.content);
    expect(contents).toHaveLength(5);
    expect(contents.join('')).toBe(plain.choices[0]?.message.content);
    const finish = chunks[chunks.length - 2];
    expect(finish?.choices[0]).toMatchObject({ delta: {}, finish_reason: 'stop' });
    const last = chunks[chunks.length - 1];
    expect(last?.choices).toEqual([]);
    expect(last?.usage).toEqual(plain.usage);
    expect(
      chunks
        .slice(0, -1)
        .every((c) => c.usage === null && c.id === chunks[0]?.id && c.object === 'chat.completion.chunk'),
    ).toBe(true);

    const withoutUsage = await client.chat.completions.create({
      model: 'm',
      messages: [{ role: 'user', content: 'Hi' }],
      stream: true,
    });
    const noUsage: OpenAI.Chat.Completions.ChatCompletionChunk[] = [];
    for await (const chunk of withoutUsage) noUsage.push(chunk);
    expect(noUsage.every((c) => c.usage === undefined && c.choices.length === 1)).toBe(true);
  });

  it('is accepted by the stream helper (finalChatCompletion)', async () => {
    const runner = client.chat.completions.stream({
      model: 'gpt-4.1',
      messages: [{ role: 'user', content: 'Stream me' }],
      stream_options: { include_usage: true },
    });
    const final = await runner.finalChatCompletion();
    expect(final.choices[0]?.message.content).toMatch(/^This is a mock reply to: Stream me/);
    expect(final.choices[0]?.finish_reason).toBe('stop');
    expect(final.model).toBe('gpt-4.1');
    expect(final.usage?.completion_tokens).toBeGreaterThan(0);
  });

  it('honours max_tokens / max_completion_tokens with finish_reason length, and n', async () => {
    const cut = await client.chat.completions.create({
      model: 'm',
      messages: [{ role: 'user', content: 'Hi' }],
      max_tokens: 3,
      n: 2,
    });
    expect(cut.choices).toHaveLength(2);
    expect(cut.choices.map((c) => c.finish_reason)).toEqual(['length', 'length']);
    expect(cut.choices[1]?.message.content).toBe('This is a mo');
    expect(cut.usage?.completion_tokens).toBe(6);
    const both = await client.chat.completions
      .stream({ model: 'm', messages: [{ role: 'user', content: 'Hi' }], n: 2 })
      .finalChatCompletion();
    expect(both.choices.map((c) => [c.index, c.finish_reason])).toEqual([
      [0, 'stop'],
      [1, 'stop'],
    ]);
    expect(both.choices[1]?.message.content).toBe(both.choices[0]?.message.content);
    const cut2 = await client.chat.completions.create({
      model: 'm',
      messages: [{ role: 'user', content: 'Hi' }],
      max_completion_tokens: 2,
    });
    expect(cut2.choices[0]).toMatchObject({ finish_reason: 'length', message: { content: 'This is ' } });
  });

  it('calls a tool when the user asks about the weather, streamed as argument deltas', async () => {
    const params = {
      model: 'm',
      messages: [{ role: 'user' as const, content: 'What is the weather in Paris?' }],
      tools: [weatherTool],
    };
    const completion = await client.chat.completions.create(params);
    const choice = completion.choices[0];
    expect(choice?.finish_reason).toBe('tool_calls');
    expect(choice?.message.content).toBeNull();
    const call = choice?.message.tool_calls?.[0];
    expect(call?.id).toMatch(/^call_/);
    expect(call?.type === 'function' && call.function).toEqual({
      name: 'get_weather',
      arguments: '{"location":"San Francisco, CA","unit":"c"}',
    });

    const chunks: OpenAI.Chat.Completions.ChatCompletionChunk[] = [];
    for await (const chunk of await client.chat.completions.create({ ...params, stream: true }))
      chunks.push(chunk);
    const argDeltas = chunks.filter((c) => c.choices[0]?.delta.tool_calls?.[0]?.function?.arguments);
    expect(argDeltas.length).toBeGreaterThan(1);
    const final = await client.chat.completions.stream(params).finalChatCompletion();
    const streamed = final.choices[0]?.message.tool_calls?.[0];
    expect(final.choices[0]?.finish_reason).toBe('tool_calls');
    expect(streamed?.type === 'function' && streamed.function.arguments).toBe(
      '{"location":"San Francisco, CA","unit":"c"}',
    );
  });

  it('answers a tool result with text, and forced tool_choice with a call', async () => {
    const answered = await client.chat.completions.create({
      model: 'm',
      tools: [weatherTool],
      messages: [
        { role: 'user', content: 'weather in Paris?' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [
            { id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{}' } },
          ],
        },
        { role: 'tool', tool_call_id: 'call_1', content: '21C' },
      ],
    });
    expect(answered.choices[0]?.finish_reason).toBe('stop');
    const forced = await client.chat.completions.create({
      model: 'm',
      tools: [weatherTool],
      tool_choice: { type: 'function', function: { name: 'get_weather' } },
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(forced.choices[0]?.finish_reason).toBe('tool_calls');
  });

  it('records what was sent upstream', async () => {
    await client.chat.completions.create({
      model: 'rewritten',
      messages: [{ role: 'user', content: 'x' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    const [sent] = mock.requests;
    expect(sent).toMatchObject({
      method: 'POST',
      path: '/v1/chat/completions',
      body: { model: 'rewritten', stream_options: { include_usage: true } },
    });
    expect(sent?.headers.authorization).toBe('Bearer x');
    expect(mock.stats).toEqual({ total: 1, byPath: { '/v1/chat/completions': 1 } });
  });

  it('rejects what OpenAI rejects, in its error shape', async () => {
    const missing = await client.chat.completions.create({ model: 'm' } as never).catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(OpenAI.BadRequestError);
    expect((missing as APIError).error).toEqual({
      message: "Missing required parameter: 'messages'.",
      type: 'invalid_request_error',
      param: 'messages',
      code: 'missing_required_parameter',
    });
    const leaked = await client.chat.completions
      .create({ model: 'm', messages: [{ role: 'user', content: 'x' }], top_k: 3 } as never)
      .catch((e: unknown) => e);
    expect((leaked as APIError).message).toContain('Unrecognized request argument supplied: top_k');
    const usageWithoutStream = await client.chat.completions
      .create({
        model: 'm',
        messages: [{ role: 'user', content: 'x' }],
        stream_options: { include_usage: true },
      })
      .catch((e: unknown) => e);
    expect((usageWithoutStream as APIError).param).toBe('stream_options');
    const orphanTool = await client.chat.completions
      .create({ model: 'm', messages: [{ role: 'tool', tool_call_id: 'call_9', content: 'x' }] })
      .catch((e: unknown) => e);
    expect((orphanTool as APIError).status).toBe(400);
    const notFound = await fetch(`${mock.url}/v1/nope`, { method: 'POST', body: '{}' });
    expect(notFound.status).toBe(404);
    expect(await notFound.json()).toEqual({
      error: {
        message: 'Invalid URL (POST /v1/nope)',
        type: 'invalid_request_error',
        param: null,
        code: null,
      },
    });
    const badJson = await fetch(`${mock.url}/v1/chat/completions`, { method: 'POST', body: '{oops' });
    expect(badJson.status).toBe(400);
  });
});

describe('completions', () => {
  it('answers text_completion, default max_tokens 16, and streams to [DONE]', async () => {
    const completion = await client.completions.create({
      model: 'gpt-3.5-turbo-instruct',
      prompt: 'Say hi',
      max_tokens: 100,
    });
    expect(completion).toMatchObject({
      object: 'text_completion',
      model: 'gpt-3.5-turbo-instruct',
      choices: [{ index: 0, finish_reason: 'stop', logprobs: null }],
    });
    expect(completion.id).toMatch(/^cmpl-/);
    const text = completion.choices[0]?.text ?? '';
    expect(text).toMatch(/^This is a mock reply to: Say hi/);

    mock.setBehaviour({ chunkCount: 32 }); // a reply of about 32 tokens, over the default budget
    const short = await client.completions.create({ model: 'm', prompt: 'Say hi' });
    expect(short.choices[0]?.finish_reason).toBe('length');
    expect(short.usage?.completion_tokens).toBe(16);

    mock.reset();
    const stream = await client.completions.create({
      model: 'm',
      prompt: 'Say hi',
      max_tokens: 100,
      stream: true,
      stream_options: { include_usage: true },
    });
    let streamed = '';
    let finish: string | null = null;
    let usage: OpenAI.CompletionUsage | null | undefined;
    for await (const chunk of stream) {
      streamed += chunk.choices[0]?.text ?? '';
      finish = chunk.choices[0]?.finish_reason ?? finish;
      usage = chunk.usage ?? usage;
    }
    expect(streamed).toBe(text);
    expect(finish).toBe('stop');
    expect(usage).toEqual(completion.usage);
  });
});

describe('responses', () => {
  it('answers a response object with usage details, for string and item input', async () => {
    const response = await client.responses.create({ model: 'gpt-4.1', input: 'Tell me a joke' });
    expect(response).toMatchObject({
      object: 'response',
      status: 'completed',
      model: 'gpt-4.1',
      error: null,
      incomplete_details: null,
    });
    expect(response.id).toMatch(/^resp_/);
    expect(response.output[0]).toMatchObject({
      type: 'message',
      role: 'assistant',
      status: 'completed',
      content: [{ type: 'output_text', annotations: [] }],
    });
    expect(response.output_text).toMatch(/^This is a mock reply to: Tell me a joke/);
    expect(response.usage).toMatchObject({
      input_tokens: 4,
      input_tokens_details: { cached_tokens: 0 },
      output_tokens_details: { reasoning_tokens: 0 },
    });

    const items = await client.responses.create({
      model: 'm',
      instructions: 'Be brief',
      input: [{ role: 'user', content: [{ type: 'input_text', text: 'From items' }] }],
    });
    expect(items.output_text).toMatch(/^This is a mock reply to: From items/);
  });

  it('streams typed events with sequence numbers, accepted by responses.stream().finalResponse()', async () => {
    const plain = await client.responses.create({ model: 'm', input: 'Stream it' });
    const events: OpenAI.Responses.ResponseStreamEvent[] = [];
    for await (const event of await client.responses.create({ model: 'm', input: 'Stream it', stream: true }))
      events.push(event);
    const types = [...new Set(events.map((e) => e.type))];
    expect(types).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
      'response.output_text.delta',
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.completed',
    ]);
    expect(events.map((e) => e.sequence_number)).toEqual(events.map((_, i) => i));
    expect(events.filter((e) => e.type === 'response.output_text.delta')).toHaveLength(8);

    const final = await client.responses.stream({ model: 'm', input: 'Stream it' }).finalResponse();
    expect(final.status).toBe('completed');
    expect(final.output_text).toBe(plain.output_text);
    expect(final.usage).toEqual(plain.usage);
  });

  it('reports incomplete when max_output_tokens cuts the answer', async () => {
    const response = await client.responses.create({
      model: 'm',
      input: 'x',
      max_output_tokens: 16,
      instructions: null,
    });
    expect(response.status).toBe('completed');
    mock.setBehaviour({ reply: 'y'.repeat(100) });
    const cut = await client.responses.create({ model: 'm', input: 'x', max_output_tokens: 16 });
    expect(cut).toMatchObject({ status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' } });
    expect(cut.output_text).toHaveLength(64);
    const streamed = await client.responses
      .stream({ model: 'm', input: 'x', max_output_tokens: 16 })
      .finalResponse();
    expect(streamed.status).toBe('incomplete');
  });

  it('answers function calls, streamed as argument deltas', async () => {
    const params = {
      model: 'm',
      input: 'weather in Rome?',
      tools: [
        {
          type: 'function' as const,
          name: 'get_weather',
          strict: false,
          parameters: weatherTool.function.parameters,
        },
      ],
    };
    const response = await client.responses.create(params);
    expect(response.output[0]).toMatchObject({
      type: 'function_call',
      name: 'get_weather',
      arguments: '{"location":"San Francisco, CA","unit":"c"}',
      status: 'completed',
    });
    const final = await client.responses.stream(params).finalResponse();
    expect(final.output[0]).toMatchObject({
      type: 'function_call',
      arguments: '{"location":"San Francisco, CA","unit":"c"}',
    });
  });
});

describe('embeddings and models', () => {
  it('returns deterministic unit vectors as float and base64', async () => {
    const floats = await client.embeddings.create({
      model: 'text-embedding-3-small',
      input: ['a', 'b'],
      encoding_format: 'float',
    });
    expect(floats).toMatchObject({
      object: 'list',
      model: 'text-embedding-3-small',
      usage: { prompt_tokens: 1, total_tokens: 1 },
    });
    expect(floats.data.map((d) => [d.object, d.index, d.embedding.length])).toEqual([
      ['embedding', 0, 16],
      ['embedding', 1, 16],
    ]);
    const norm = Math.sqrt((floats.data[0]?.embedding ?? []).reduce((s, v) => s + v * v, 0));
    expect(norm).toBeCloseTo(1, 5);
    expect(floats.data[0]?.embedding).not.toEqual(floats.data[1]?.embedding);

    // The SDK asks for base64 by default and decodes it: it must match the float answer exactly.
    const decoded = await client.embeddings.create({ model: 'text-embedding-3-small', input: ['a', 'b'] });
    expect(decoded.data[0]?.embedding).toEqual(floats.data[0]?.embedding);
    expect(mock.requests[1]?.body).toMatchObject({ encoding_format: 'base64' });

    const sized = await client.embeddings.create({
      model: 'm',
      input: 'a',
      dimensions: 3,
      encoding_format: 'float',
    });
    expect(sized.data[0]?.embedding).toHaveLength(3);
  });

  it('lists the configured models', async () => {
    const models = [];
    for await (const model of client.models.list()) models.push(model);
    expect(models.map((m) => m.id)).toEqual(mock.behaviour.models);
    expect(models[0]).toEqual({
      id: 'mock-gpt',
      object: 'model',
      created: 1_700_000_000,
      owned_by: 'openai',
    });
    expect(models[1]?.owned_by).toBe('anthropic');
    mock.setBehaviour({ models: ['only-one'] });
    const one = await client.models.list();
    expect(one.data.map((m) => m.id)).toEqual(['only-one']);
    expect((await client.models.retrieve('only-one')).id).toBe('only-one');
    await expect(client.models.retrieve('nope')).rejects.toBeInstanceOf(OpenAI.NotFoundError);
  });
});
