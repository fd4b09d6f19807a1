import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import OpenAI from 'openai';
import { announceKeyInvalidation } from '#libs/auth';
import { redisKeys } from '#libs/redis';
import { createRedis } from '#libs/redis';
import { eventually, type Gateway, startGateway, testConfig } from '../support/gateway.js';

/** How long the edge may keep a resolved key without asking again (the default, stated here). */
const KEY_CACHE_TTL_MS = 60_000;

let gw: Gateway;
let key: Awaited<ReturnType<Gateway['createKey']>>;
let client: OpenAI;

beforeAll(async () => {
  gw = await startGateway('e2e-chat', (mockUrl) => {
    const config = testConfig(mockUrl);
    return { ...config, edge: { ...config.edge, key_cache_ttl_ms: KEY_CACHE_TTL_MS } };
  });
  key = await gw.createKey();
  client = new OpenAI({ baseURL: `${gw.edgeUrl}/v1`, apiKey: key.raw, maxRetries: 0 });
}, 30_000);

afterAll(async () => {
  await gw?.close();
});

const logRow = (requestId: string) => gw.logRow(requestId);

describe('GET /v1/models', () => {
  it('lists exactly the models of the key group, in the OpenAI shape', async () => {
    const page = await client.models.list();
    expect(page.data.map((m) => m.id).sort()).toEqual(['mock-gpt', 'mock-gpt-renamed']);
    expect(page.data[0]).toEqual({
      id: expect.any(String),
      object: 'model',
      created: 1767225600,
      owned_by: 'mock-provider',
    });
  });
});

describe('POST /v1/chat/completions', () => {
  it('answers non-stream through the mock provider and logs the request with usage and cost in Postgres', async () => {
    const { data, response } = await client.chat.completions
      .create({
        model: 'mock-gpt',
        messages: [
          { role: 'system', content: 'Be brief.' },
          { role: 'user', content: 'Hello there' },
        ],
      })
      .withResponse();
    expect(data.object).toBe('chat.completion');
    expect(data.choices[0]!.message.content).toMatch(/Hello there/);
    expect(data.usage!.prompt_tokens).toBeGreaterThan(0);
    const requestId = response.headers.get('x-request-id')!;
    expect(requestId).toMatch(/^req_[0-9a-f]{32}$/);
    // Which provider answered is not disclosed unless routing.provider_header is on.
    expect(response.headers.get('x-gateway-provider')).toBeNull();

    const row = await logRow(requestId);
    expect(row).toMatchObject({
      endpoint: '/v1/chat/completions',
      model: 'mock-gpt',
      provider_id: 'mock-openai',
      status: 200,
      stream: false,
      usage_estimated: false,
    });
    expect(Number(row.input_tokens)).toBe(data.usage!.prompt_tokens);
    expect(Number(row.output_tokens)).toBe(data.usage!.completion_tokens);
    const expectedCost = data.usage!.prompt_tokens * 1000 + data.usage!.completion_tokens * 2000;
    expect(Number(row.cost_nanos)).toBe(expectedCost);
    const charge = await gw.db.db
      .selectFrom('charges')
      .selectAll()
      .where('request_id', '=', requestId)
      .executeTakeFirstOrThrow();
    expect(Number(charge.amount_nanos)).toBe(expectedCost);
  });

  it('sends the upstream model name when the config maps one', async () => {
    await client.chat.completions.create({
      model: 'mock-gpt-renamed',
      messages: [{ role: 'user', content: 'hi' }],
    });
    const sent = gw.mock.requests.filter((r) => r.path === '/v1/chat/completions').at(-1)!;
    expect((sent.body as { model: string }).model).toBe('upstream-gpt');
  });

  it('streams SSE chunks to [DONE], strips the usage chunk the client did not ask for, and still logs usage', async () => {
    const { data: stream, response } = await client.chat.completions
      .create({ model: 'mock-gpt', stream: true, messages: [{ role: 'user', content: 'Stream me a story' }] })
      .withResponse();
    expect(response.headers.get('content-type')).toMatch(/text\/event-stream/);
    let text = '';
    let chunks = 0;
    for await (const chunk of stream) {
      chunks++;
      expect(chunk.choices.length).toBe(1);
      text += chunk.choices[0]!.delta.content ?? '';
    }
    expect(chunks).toBeGreaterThan(2);
    expect(text).toMatch(/Stream me a story/);
    const sent = gw.mock.requests.filter((r) => r.path === '/v1/chat/completions').at(-1)!;
    expect((sent.body as { stream_options?: unknown }).stream_options).toEqual({ include_usage: true });

    const row = await logRow(response.headers.get('x-request-id')!);
    expect(row.stream).toBe(true);
    expect(row.usage_estimated).toBe(false);
    expect(Number(row.output_tokens)).toBeGreaterThan(0);
    expect(row.ttft_ms).not.toBeNull();
  });

  it('passes the usage chunk through when the client asks, and the SDK stream helper accepts the stream', async () => {
    const runner = client.chat.completions.stream({
      model: 'mock-gpt',
      messages: [{ role: 'user', content: 'with usage' }],
      stream_options: { include_usage: true },
    });
    const final = await runner.finalChatCompletion();
    expect(final.choices[0]!.message.content).toMatch(/with usage/);
    expect(final.usage?.completion_tokens).toBeGreaterThan(0);
  });
});

describe('client abort', () => {
  it('records a client that hangs up mid-stream, and stops reading the upstream', async () => {
    // A 10 s answer: a request logged long before it ended was cut off, on however loaded a runner.
    gw.mock.setBehaviour({ chunkCount: 400, chunkIntervalMs: 25 });
    try {
      const abort = new AbortController();
      const res = await fetch(`${gw.edgeUrl}/v1/chat/completions`, {
        method: 'POST',
        signal: abort.signal,
        headers: { 'content-type': 'application/json', authorization: `Bearer ${key.raw}` },
        body: JSON.stringify({
          model: 'mock-gpt',
          stream: true,
          messages: [{ role: 'user', content: 'long story' }],
        }),
      });
      const reader = res.body!.getReader();
      await reader.read();
      abort.abort();
      const row = await logRow(res.headers.get('x-request-id')!);
      expect(row.error_code).toBe('client_disconnected');
      // Charged for what was produced before the hang-up, and marked as the gateway's estimate.
      expect(row.usage_estimated).toBe(true);
      expect(Number(row.cost_nanos)).toBeGreaterThan(0);
      expect(row.latency_ms).toBeLessThan(400 * 25);
    } finally {
      gw.mock.reset();
    }
  });
});

describe('a provider that reports no usage', () => {
  it('still charges a non-stream answer, by estimate, and marks the log as estimated', async () => {
    gw.mock.setBehaviour({ omitUsage: true });
    try {
      const prompt = 'Please count me: '.repeat(10);
      const { data, response } = await client.chat.completions
        .create({ model: 'mock-gpt', messages: [{ role: 'user', content: prompt }] })
        .withResponse();
      expect(data.usage).toBeUndefined(); // passed through as the provider sent it
      const row = await logRow(response.headers.get('x-request-id')!);
      expect(row.usage_estimated).toBe(true);
      // ceil(chars / 4): the prompt ('user' + its text) in, the reply's text out.
      expect(row.input_tokens).toBe(Math.ceil(('user' + prompt).length / 4));
      expect(row.output_tokens).toBe(Math.ceil(data.choices[0]!.message.content!.length / 4));
      expect(Number(row.cost_nanos)).toBe(row.input_tokens! * 1000 + row.output_tokens! * 2000);
    } finally {
      gw.mock.reset();
    }
  });

  it('charges a stream that ends without a usage chunk, by estimate', async () => {
    gw.mock.setBehaviour({ omitUsage: true });
    try {
      const { data: stream, response } = await client.chat.completions
        .create({ model: 'mock-gpt', stream: true, messages: [{ role: 'user', content: 'no usage here' }] })
        .withResponse();
      let text = '';
      for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
      const row = await logRow(response.headers.get('x-request-id')!);
      expect(row).toMatchObject({ status: 200, error_code: null, usage_estimated: true });
      expect(row.output_tokens).toBe(Math.ceil(text.length / 4));
      expect(Number(row.cost_nanos)).toBeGreaterThan(0);
    } finally {
      gw.mock.reset();
    }
  });
});

describe('errors', () => {
  it('rejects a missing or invalid key with 401 invalid_api_key in shape A', async () => {
    const bad = new OpenAI({ baseURL: `${gw.edgeUrl}/v1`, apiKey: 'sk-' + 'x'.repeat(48), maxRetries: 0 });
    const err = await bad.models.list().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.AuthenticationError);
    expect((err as InstanceType<typeof OpenAI.APIError>).status).toBe(401);
    expect((err as InstanceType<typeof OpenAI.APIError>).error).toEqual({
      message: 'Invalid API key provided.',
      type: 'invalid_request_error',
      param: null,
      code: 'invalid_api_key',
    });
    const res = await fetch(`${gw.edgeUrl}/v1/chat/completions`, {
      method: 'POST',
      body: '{}',
      headers: { 'content-type': 'application/json' },
    });
    expect(res.status).toBe(401);
    expect(res.headers.get('x-request-id')).toMatch(/^req_/);
  });

  it('refuses a model outside the key group (403) and an unknown model (404)', async () => {
    const notAllowed = await client.chat.completions
      .create({ model: 'mock-secret', messages: [{ role: 'user', content: 'x' }] })
      .catch((e: unknown) => e);
    expect((notAllowed as InstanceType<typeof OpenAI.APIError>).status).toBe(403);
    expect((notAllowed as InstanceType<typeof OpenAI.APIError>).code).toBe('model_not_allowed');
    const unknown = await client.chat.completions
      .create({ model: 'no-such-model', messages: [{ role: 'user', content: 'x' }] })
      .catch((e: unknown) => e);
    expect((unknown as InstanceType<typeof OpenAI.APIError>).status).toBe(404);
    expect((unknown as InstanceType<typeof OpenAI.APIError>).code).toBe('model_not_found');
  });

  const post = (body: string, headers: Record<string, string> = {}) =>
    fetch(`${gw.edgeUrl}/v1/chat/completions`, {
      method: 'POST',
      body,
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key.raw}`, ...headers },
    });

  it('answers malformed JSON with 400 invalid_json, a non-object body and missing messages with 400', async () => {
    const res = await post('{"model": "mock-gpt", ');
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({
      error: { type: 'invalid_request_error', code: 'invalid_json' },
    });
    expect((await post('[1,2]')).status).toBe(400);
    const missing = await post('{"model":"mock-gpt"}');
    expect(missing.status).toBe(400);
    expect(await missing.json()).toMatchObject({ error: { param: 'messages', code: 'invalid_request' } });
  });

  it('answers a body over the limit with 413, and an unsupported content type with 415', async () => {
    const big = JSON.stringify({
      model: 'mock-gpt',
      messages: [{ role: 'user', content: 'x'.repeat(gw.config.edge.body_limit_bytes) }],
    });
    const res = await post(big);
    expect(res.status).toBe(413);
    expect(await res.json()).toMatchObject({ error: { code: 'request_too_large' } });
    const xml = await post('<a/>', { 'content-type': 'application/xml' });
    expect(xml.status).toBe(415);
    expect(await xml.json()).toMatchObject({ error: { code: 'unsupported_media_type' } });
  });

  it('answers unknown routes with 404 in shape A and a request id', async () => {
    const res = await fetch(`${gw.edgeUrl}/v1/nothing-here`);
    expect(res.status).toBe(404);
    expect(res.headers.get('x-request-id')).toMatch(/^req_/);
    expect(await res.json()).toMatchObject({ error: { code: 'not_found', type: 'invalid_request_error' } });
  });

  it('maps an upstream 5xx to 502 upstream_error in shape A, and logs it', async () => {
    gw.mock.setBehaviour({ failureRate: 1, failStatus: 500 });
    try {
      const err = await client.chat.completions
        .create({ model: 'mock-gpt', messages: [{ role: 'user', content: 'x' }] })
        .catch((e: unknown) => e);
      expect((err as InstanceType<typeof OpenAI.APIError>).status).toBe(502);
      expect((err as InstanceType<typeof OpenAI.APIError>).code).toBe('upstream_error');
      const row = await logRow((err as InstanceType<typeof OpenAI.APIError>).requestID!);
      expect(row.error_code).toBe('upstream_error');
    } finally {
      gw.mock.reset();
    }
  });
});

describe('key revocation', () => {
  /**
   * `warmedAt` is taken before the edge first resolved the key, so its cached copy does not expire
   * before `warmedAt + KEY_CACHE_TTL_MS`: the refusal is awaited until half that at most, a bound
   * no loaded machine comes near (no latency target: the bench measures that) that still makes
   * the refusal the pushed invalidation's doing, never the key cache's expiry.
   */
  it('reaches the edge while it still caches the key', async () => {
    const victim = await gw.createKey({ email: 'revoke@example.com' });
    const c = new OpenAI({ baseURL: `${gw.edgeUrl}/v1`, apiKey: victim.raw, maxRetries: 0 });
    const warmedAt = Date.now();
    await c.models.list(); // now cached in the edge's memory
    await gw.db.db
      .updateTable('api_keys')
      .set({ status: 'revoked', revoked_at: new Date() })
      .where('id', '=', victim.id)
      .execute();
    const redis = createRedis(gw.env.redis);
    try {
      await announceKeyInvalidation(redis, redisKeys(gw.env.redisPrefix), victim.hash);
    } finally {
      redis.disconnect();
    }
    const status = await eventually(
      async () => {
        const r = await c.models.list().then(
          () => 200,
          (e: InstanceType<typeof OpenAI.APIError>) => e.status,
        );
        return r === 401 ? r : undefined;
      },
      warmedAt + KEY_CACHE_TTL_MS / 2 - Date.now(),
      'refusal while the key is still cached',
    );
    expect(status).toBe(401);
  }, 60_000);
});

describe('routing', () => {
  it('the edge routes on the table the router published', async () => {
    const health = await eventually(
      async () => {
        const h = (await (await fetch(`${gw.edgeUrl}/healthz`)).json()) as { routes: { source: string } };
        return h.routes.source === 'router' ? h : undefined;
      },
      5000,
      'router table at the edge',
    );
    expect(health.routes.source).toBe('router');
    const routes = (await (await fetch(`${gw.routerUrl}/routes`)).json()) as Record<string, unknown>;
    expect(JSON.stringify(routes)).toContain('mock-openai');
  });
});
