import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { type GatewayConfigInput } from '#libs/config';
import { type Gateway, startGateway, testConfigWithAnthropic } from '../support/gateway.js';

/** POST /v1/messages to an Anthropic provider: a native passthrough, driven by the official SDK. */
let gw: Gateway;
let key: string;
let client: Anthropic;

const config = (mockUrl: string): GatewayConfigInput =>
  testConfigWithAnthropic(mockUrl, ['mock-claude', { id: 'claude-alias', upstream: 'claude-upstream-id' }]);

beforeAll(async () => {
  gw = await startGateway('e2e-messages', config);
  key = (await gw.createKey()).raw;
  client = new Anthropic({ baseURL: gw.edgeUrl, apiKey: key, maxRetries: 0 });
}, 30_000);

afterAll(async () => {
  await gw?.close();
});

const lastMessages = () => gw.mock.requests.filter((r) => r.path === '/v1/messages').at(-1)!;
const hello = {
  model: 'mock-claude',
  max_tokens: 100,
  messages: [{ role: 'user' as const, content: 'Hello' }],
};

describe('auth', () => {
  it('takes the key as x-api-key (the SDK default) or as Authorization: Bearer', async () => {
    const bearer = new Anthropic({ baseURL: gw.edgeUrl, authToken: key, apiKey: null, maxRetries: 0 });
    for (const c of [client, bearer]) expect((await c.messages.create(hello)).type).toBe('message');
  });

  it('refuses a bad key with 401 authentication_error in shape B', async () => {
    const bad = new Anthropic({ baseURL: gw.edgeUrl, apiKey: 'sk-' + 'x'.repeat(48), maxRetries: 0 });
    const err = (await bad.messages.create(hello).catch((e: unknown) => e)) as InstanceType<
      typeof Anthropic.APIError
    >;
    expect(err).toBeInstanceOf(Anthropic.AuthenticationError);
    expect(err.error).toEqual({
      type: 'error',
      error: { type: 'authentication_error', message: expect.any(String) },
    });
  });
});

describe('passthrough', () => {
  it('sends the body unchanged but for the model: cache marks, thinking, metadata, unknown tools, ~100 KB', async () => {
    const body = {
      model: 'claude-alias',
      max_tokens: 2048,
      system: [
        { type: 'text' as const, text: 'x'.repeat(100_000), cache_control: { type: 'ephemeral' as const } },
      ],
      messages: [
        {
          role: 'user' as const,
          content: [
            { type: 'text' as const, text: 'Think first', cache_control: { type: 'ephemeral' as const } },
          ],
        },
      ],
      thinking: { type: 'enabled' as const, budget_tokens: 1024 },
      metadata: { user_id: 'u-1' },
      context_management: { edits: [{ type: 'clear_tool_uses_20250919' }] },
      tools: [{ type: 'web_search_20250305', name: 'web_search', max_uses: 1 }],
    };
    const msg = await client.beta.messages.create(body as never, {
      headers: { 'anthropic-beta': 'context-management-2025-06-27', 'anthropic-version': '2023-06-01' },
    });
    const sent = lastMessages();
    expect(sent.body).toEqual({ ...body, model: 'claude-upstream-id' });
    expect(sent.headers['anthropic-beta']).toBe('context-management-2025-06-27');
    expect(sent.headers['anthropic-version']).toBe('2023-06-01');
    expect(sent.headers['x-api-key']).toBeUndefined(); // the gateway's key, never the client's
    // The SDK's beta client adds ?beta=true; the answer keeps the thinking block and its signature.
    expect(msg.content[0]).toMatchObject({ type: 'thinking', signature: expect.stringMatching(/^sig_/) });
  });

  it('streams the vendor events as they come and logs usage with cache reads', async () => {
    gw.mock.setBehaviour({ cachedTokens: 2 });
    try {
      const stream = client.messages.stream({
        ...hello,
        messages: [{ role: 'user', content: 'Stream a bit more text' }],
      });
      const events: string[] = [];
      stream.on('streamEvent', (e) => events.push(e.type));
      const final = await stream.finalMessage();
      const { response } = await stream.withResponse();
      expect(events[0]).toBe('message_start');
      expect(events.at(-1)).toBe('message_stop');
      expect(final.usage.cache_read_input_tokens).toBe(2);
      const row = await gw.logRow(response.headers.get('x-request-id')!);
      expect(row).toMatchObject({
        endpoint: '/v1/messages',
        provider_id: 'mock-anthropic',
        stream: true,
        status: 200,
      });
      expect(Number(row.input_tokens)).toBe(final.usage.input_tokens + 2);
      expect(Number(row.cached_tokens)).toBe(2);
      expect(Number(row.output_tokens)).toBe(final.usage.output_tokens);
    } finally {
      gw.mock.reset();
    }
  });
});

describe('errors in shape B', () => {
  it('answers a malformed request with 400 invalid_request_error', async () => {
    for (const bad of [
      { ...hello, max_tokens: undefined },
      { ...hello, messages: 'hi' },
      { ...hello, max_tokens: 0 },
    ]) {
      const err = (await client.messages.create(bad as never).catch((e: unknown) => e)) as InstanceType<
        typeof Anthropic.APIError
      >;
      expect(err).toBeInstanceOf(Anthropic.BadRequestError);
      expect(err.error).toEqual({
        type: 'error',
        error: { type: 'invalid_request_error', message: expect.any(String) },
      });
    }
    const res = await fetch(`${gw.edgeUrl}/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': key },
      body: '{"model":',
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({
      type: 'error',
      error: { type: 'invalid_request_error', message: expect.any(String) },
    });
  });

  it("passes the provider's own 400 through", async () => {
    const err = (await client.messages
      .create({ ...hello, temperature: 1.5 } as never)
      .catch((e: unknown) => e)) as InstanceType<typeof Anthropic.APIError>;
    expect(err.status).toBe(400);
    expect(err.error).toMatchObject({
      type: 'error',
      error: { type: 'invalid_request_error', message: /temperature/ },
    });
  });

  it('ends a stream that fails after it began with an error event, and logs it', async () => {
    gw.mock.setBehaviour({ midStreamError: true, chunkCount: 6 });
    try {
      const stream = client.messages.stream({
        ...hello,
        messages: [{ role: 'user', content: 'Break please' }],
      });
      const err = await stream.finalMessage().catch((e: unknown) => e);
      expect(err).toBeInstanceOf(Anthropic.APIError);
      const { response } = await stream.withResponse();
      const row = await gw.logRow(response.headers.get('x-request-id')!);
      expect(row.error_code).toBe('upstream_stream_error');
      expect(Number(row.input_tokens)).toBeGreaterThan(0);
    } finally {
      gw.mock.reset();
    }
  });
});

describe('client abort', () => {
  it('aborts the upstream at once and charges the input reported and the output streamed so far', async () => {
    gw.mock.setBehaviour({ chunkCount: 40, chunkIntervalMs: 25 });
    try {
      const abort = new AbortController();
      const res = await fetch(`${gw.edgeUrl}/v1/messages`, {
        method: 'POST',
        signal: abort.signal,
        headers: { 'content-type': 'application/json', 'x-api-key': key, 'anthropic-version': '2023-06-01' },
        body: JSON.stringify({
          ...hello,
          max_tokens: 1000,
          stream: true,
          messages: [{ role: 'user', content: 'A long story' }],
        }),
      });
      const reader = res.body!.getReader();
      let seen = '';
      while (!seen.includes('text_delta')) seen += new TextDecoder().decode((await reader.read()).value);
      abort.abort();
      const row = await gw.logRow(res.headers.get('x-request-id')!);
      expect(row.error_code).toBe('client_disconnected');
      expect(row.latency_ms).toBeLessThan(40 * 25);
      expect(Number(row.input_tokens)).toBeGreaterThan(0);
      expect(Number(row.output_tokens)).toBeGreaterThan(0);
      expect(Number(row.output_tokens)).toBeLessThan(40);
      expect(Number(row.cost_nanos)).toBeGreaterThan(0);
    } finally {
      gw.mock.reset();
    }
  });
});
