import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import Anthropic from '@anthropic-ai/sdk';
import { startMockProvider, type MockProvider } from '../../index.js';

let mock: MockProvider;
let client: Anthropic;

beforeAll(async () => {
  mock = await startMockProvider({ port: 0 });
  client = new Anthropic({ baseURL: mock.url, apiKey: 'x', maxRetries: 0 });
});
afterAll(() => mock.close());
beforeEach(() => mock.reset());

const weatherTool = {
  name: 'get_weather',
  description: 'Weather by city',
  input_schema: {
    type: 'object' as const,
    properties: { location: { type: 'string' } },
    required: ['location'],
  },
};

async function rawMessages(
  body: unknown,
  headers: Record<string, string> = { 'anthropic-version': '2023-06-01' },
): Promise<{ status: number; body: unknown }> {
  const res = await fetch(`${mock.url}/v1/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': 'x', ...headers },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
}

describe('messages', () => {
  it('answers a message object with usage', async () => {
    const message = await client.messages.create({
      model: 'claude-sonnet-4-6',
      max_tokens: 1024,
      system: 'Be nice',
      messages: [{ role: 'user', content: 'Hello Claude' }],
    });
    expect(message).toMatchObject({
      type: 'message',
      role: 'assistant',
      model: 'claude-sonnet-4-6',
      stop_reason: 'end_turn',
      stop_sequence: null,
    });
    expect(message.id).toMatch(/^msg_/);
    const block = message.content[0];
    expect(block?.type === 'text' && block.text).toMatch(/^This is a mock reply to: Hello Claude/);
    expect(message.usage).toMatchObject({
      input_tokens: Math.ceil('Be niceHello Claude'.length / 4),
      output_tokens: Math.ceil((block?.type === 'text' ? block.text : '').length / 4),
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 0,
    });
    const sent = mock.requests[0];
    // SDK v1 sends the key as a bearer token; raw clients and gateways often use x-api-key.
    expect(sent?.headers.authorization ?? sent?.headers['x-api-key']).toMatch(/x$/);
    expect(sent?.headers['anthropic-version']).toBeDefined();
  });

  it('streams events accepted by messages.stream().finalMessage(), consistent with non-stream', async () => {
    mock.setBehaviour({ cachedTokens: 2 });
    const params = {
      model: 'claude-sonnet-4-6',
      max_tokens: 1024,
      messages: [{ role: 'user' as const, content: 'Stream please, Claude' }],
    };
    const plain = await client.messages.create(params);
    const events: string[] = [];
    for await (const event of await client.messages.create({ ...params, stream: true }))
      events.push(event.type);
    expect(events).toEqual([
      'message_start',
      'content_block_start',
      ...Array.from({ length: 8 }, () => 'content_block_delta'),
      'content_block_stop',
      'message_delta',
      'message_stop',
    ]);
    // The SDK hides pings; the wire has one after the first content_block_start.
    const res = await fetch(`${mock.url}/v1/messages`, {
      method: 'POST',
      headers: { 'x-api-key': 'x', 'anthropic-version': '2023-06-01' },
      body: JSON.stringify({ ...params, stream: true }),
    });
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const wire = (await res.text()).split('\n').filter((l) => l.startsWith('event: '));
    expect(wire.slice(0, 4)).toEqual([
      'event: message_start',
      'event: content_block_start',
      'event: ping',
      'event: content_block_delta',
    ]);
    expect(wire[wire.length - 1]).toBe('event: message_stop');

    const final = await client.messages.stream(params).finalMessage();
    expect(final.content).toEqual(plain.content.map((b) => ({ ...b })));
    expect(final.stop_reason).toBe('end_turn');
    expect(final.usage.output_tokens).toBe(plain.usage.output_tokens);
    expect(final.usage.input_tokens).toBe(plain.usage.input_tokens);
    expect(final.usage.cache_read_input_tokens).toBe(2);
  });

  it('stops with max_tokens and stop_sequence', async () => {
    const cut = await client.messages.create({
      model: 'm',
      max_tokens: 2,
      messages: [{ role: 'user', content: 'Hi' }],
    });
    expect(cut.stop_reason).toBe('max_tokens');
    expect(cut.usage.output_tokens).toBe(2);
    const stopped = await client.messages.create({
      model: 'm',
      max_tokens: 100,
      stop_sequences: ['mock'],
      messages: [{ role: 'user', content: 'Hi' }],
    });
    expect(stopped).toMatchObject({
      stop_reason: 'stop_sequence',
      stop_sequence: 'mock',
      content: [{ type: 'text', text: 'This is a ' }],
    });
    const streamed = await client.messages
      .stream({
        model: 'm',
        max_tokens: 100,
        stop_sequences: ['mock'],
        messages: [{ role: 'user', content: 'Hi' }],
      })
      .finalMessage();
    expect(streamed).toMatchObject({ stop_reason: 'stop_sequence', stop_sequence: 'mock' });
  });

  it('uses tools: tool_use block streamed as input_json_delta, then a text answer to the result', async () => {
    const params = {
      model: 'm',
      max_tokens: 500,
      tools: [weatherTool],
      messages: [{ role: 'user' as const, content: "What's the weather in Oslo?" }],
    };
    const message = await client.messages.create(params);
    expect(message.stop_reason).toBe('tool_use');
    const use = message.content.find((b) => b.type === 'tool_use');
    expect(use).toMatchObject({
      type: 'tool_use',
      name: 'get_weather',
      input: { location: 'San Francisco, CA' },
    });
    expect(use?.type === 'tool_use' && use.id).toMatch(/^toolu_/);

    const jsonDeltas: string[] = [];
    const stream = client.messages.stream(params).on('inputJson', (partial) => jsonDeltas.push(partial));
    const final = await stream.finalMessage();
    expect(jsonDeltas.length).toBeGreaterThan(1);
    expect(final.stop_reason).toBe('tool_use');
    expect(final.content.map((b) => b.type)).toEqual(['text', 'tool_use']);
    expect(final.content[1]).toMatchObject({ name: 'get_weather', input: { location: 'San Francisco, CA' } });

    const id = use?.type === 'tool_use' ? use.id : '';
    const answer = await client.messages.create({
      ...params,
      messages: [
        ...params.messages,
        { role: 'assistant', content: message.content },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: '3C' }] },
      ],
    });
    expect(answer.stop_reason).toBe('end_turn');
    const forced = await client.messages.create({
      ...params,
      tool_choice: { type: 'tool', name: 'get_weather' },
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(forced.stop_reason).toBe('tool_use');
  });

  it('rejects what Anthropic rejects, in its error shape with a request id', async () => {
    const noMax = await rawMessages({ model: 'm', messages: [{ role: 'user', content: 'x' }] });
    expect(noMax.status).toBe(400);
    expect(noMax.body).toMatchObject({
      type: 'error',
      error: { type: 'invalid_request_error', message: 'max_tokens: Field required' },
    });
    expect((noMax.body as { request_id: string }).request_id).toMatch(/^req_/);
    const noVersion = await rawMessages(
      { model: 'm', max_tokens: 5, messages: [{ role: 'user', content: 'x' }] },
      {},
    );
    expect(noVersion.body).toMatchObject({ error: { message: 'anthropic-version: header is required' } });
    const leaked = await rawMessages({
      model: 'm',
      max_tokens: 5,
      stream_options: {},
      messages: [{ role: 'user', content: 'x' }],
    });
    expect(leaked.body).toMatchObject({
      error: { message: 'stream_options: Extra inputs are not permitted' },
    });
    const systemRole = await rawMessages({
      model: 'm',
      max_tokens: 5,
      messages: [{ role: 'system', content: 'x' }],
    });
    expect(systemRole.status).toBe(400);
    const unpaired = await rawMessages({
      model: 'm',
      max_tokens: 5,
      messages: [
        { role: 'user', content: 'weather?' },
        { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: {} }] },
        { role: 'user', content: 'no result' },
      ],
    });
    expect(unpaired.body).toMatchObject({ error: { type: 'invalid_request_error' } });
    expect(JSON.stringify(unpaired.body)).toContain('toolu_1');

    const viaSdk = await client.messages
      .create({ model: 'm', max_tokens: 0, messages: [{ role: 'user', content: 'x' }] })
      .catch((e: unknown) => e);
    expect(viaSdk).toBeInstanceOf(Anthropic.BadRequestError);
    expect((viaSdk as InstanceType<typeof Anthropic.APIError>).requestID).toMatch(/^req_/);
  });

  it('lists models in Anthropic shape for Anthropic clients', async () => {
    const page = await client.models.list();
    expect(page.data[0]).toMatchObject({ type: 'model', id: 'mock-gpt', display_name: 'mock-gpt' });
    expect(page.data.map((m) => m.id)).toEqual(mock.behaviour.models);
  });
});

describe('web search server tool', () => {
  const search = { type: 'web_search_20250305' as const, name: 'web_search' as const, max_uses: 3 };
  const ask = {
    model: 'claude-sonnet-4-6',
    max_tokens: 1024,
    messages: [{ role: 'user' as const, content: 'Please search the web for Shannon' }],
    tools: [search],
  };

  it('answers a prompt mentioning search with the search blocks, whole and streamed', async () => {
    for (const message of [
      await client.messages.create(ask),
      await client.messages.stream(ask).finalMessage(),
    ]) {
      expect(message.content.map((b) => b.type)).toEqual([
        'server_tool_use',
        'web_search_tool_result',
        'text',
      ]);
      const [call, result, text] = message.content;
      expect(call).toMatchObject({
        name: 'web_search',
        input: { query: 'Please search the web for Shannon' },
      });
      expect(result).toMatchObject({ tool_use_id: (call as { id: string }).id });
      expect(text).toMatchObject({
        citations: [expect.objectContaining({ type: 'web_search_result_location' })],
      });
      expect(message.usage.server_tool_use).toEqual({ web_search_requests: 1 });
      expect(message.stop_reason).toBe('end_turn');
    }
  });

  it('runs webSearchCount searches, at most max_uses, and counts them in usage', async () => {
    mock.setBehaviour({ webSearchCount: 5 });
    for (const message of [
      await client.messages.create(ask),
      await client.messages.stream(ask).finalMessage(),
    ]) {
      expect(message.content.map((b) => b.type)).toEqual([
        ...Array.from({ length: 3 }, () => ['server_tool_use', 'web_search_tool_result']).flat(),
        'text',
      ]);
      expect(message.usage.server_tool_use).toEqual({ web_search_requests: 3 });
    }
  });

  it('answers plainly without the word or without the tool', async () => {
    const plain = await client.messages.create({ ...ask, messages: [{ role: 'user', content: 'Hello' }] });
    const untooled = await client.messages.create({ ...ask, tools: [] });
    for (const message of [plain, untooled]) expect(message.content.map((b) => b.type)).toEqual(['text']);
  });

  it.each([
    [{ ...search, name: 'search' }, "name: Input should be 'web_search'"],
    [{ ...search, max_uses: 0 }, 'max_uses: Input should be greater than 0'],
    [{ ...search, allowed_domains: ['a.com'], blocked_domains: ['b.com'] }, 'both allowed_domains'],
    [{ ...search, user_location: { type: 'exact', city: 'Paris' } }, "Input should be 'approximate'"],
    [{ ...search, search_context_size: 'low' }, 'search_context_size: Extra inputs are not permitted'],
  ])('refuses a tool definition Anthropic refuses: %j', async (tool, message) => {
    const res = await rawMessages({ ...ask, tools: [tool] });
    expect(res.status).toBe(400);
    expect(JSON.stringify(res.body)).toContain(message);
  });
});
