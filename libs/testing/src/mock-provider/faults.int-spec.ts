import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI, { type APIError } from 'openai';
import { startMockProvider, type MockProvider } from '../../index.js';

let mock: MockProvider;
let openai: OpenAI;
let anthropic: Anthropic;
const chat = { model: 'm', messages: [{ role: 'user' as const, content: 'Hi' }] };

beforeAll(async () => {
  mock = await startMockProvider({ port: 0 });
  openai = new OpenAI({ baseURL: `${mock.url}/v1`, apiKey: 'x', maxRetries: 0 });
  anthropic = new Anthropic({ baseURL: mock.url, apiKey: 'x', maxRetries: 0 });
});
afterAll(() => mock.close());
beforeEach(() => mock.reset());

function post(path: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${mock.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
}

describe('failure injection', () => {
  it('answers x-mock-fail with the vendor error body', async () => {
    const res = await post('/v1/chat/completions', chat, { 'x-mock-fail': '500' });
    expect(res.status).toBe(500);
    expect(res.headers.get('x-request-id')).toMatch(/^req_/);
    expect(await res.json()).toEqual({
      error: {
        message: 'The server had an error while processing your request. Sorry about that!',
        type: 'server_error',
        param: null,
        code: null,
      },
    });
    const err = await openai.chat.completions
      .create(chat, { headers: { 'x-mock-fail': '503' } })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.InternalServerError);
    expect((err as APIError).status).toBe(503);

    const overloaded = await post(
      '/v1/messages',
      { model: 'm', max_tokens: 5, messages: [{ role: 'user', content: 'x' }] },
      { 'x-mock-fail': '529', 'anthropic-version': '2023-06-01' },
    );
    expect(overloaded.status).toBe(529);
    expect(overloaded.headers.get('request-id')).toMatch(/^req_/);
    expect(await overloaded.json()).toMatchObject({
      type: 'error',
      error: { type: 'overloaded_error', message: 'Overloaded' },
    });
  });

  it('sends 429 with retry-after, which the SDK honours when retrying', async () => {
    mock.setBehaviour({ failureRate: 1, failStatus: 429, retryAfterSeconds: 1 });
    const res = await post('/v1/chat/completions', chat);
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toBe('1');
    expect(await res.json()).toMatchObject({ error: { type: 'requests', code: 'rate_limit_exceeded' } });

    const retrying = new OpenAI({ baseURL: `${mock.url}/v1`, apiKey: 'x', maxRetries: 1 });
    const started = Date.now();
    const err = await retrying.chat.completions.create(chat).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.RateLimitError);
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
    expect(mock.stats.byPath['/v1/chat/completions']).toBe(3);

    const claude = await anthropic.messages
      .create({ model: 'm', max_tokens: 5, messages: [{ role: 'user', content: 'x' }] })
      .catch((e: unknown) => e);
    expect(claude).toBeInstanceOf(Anthropic.RateLimitError);
    expect((claude as InstanceType<typeof Anthropic.APIError>).error).toMatchObject({
      type: 'error',
      error: { type: 'rate_limit_error' },
    });
  });

  it('fails by failureRate: 0 never, 1 always', async () => {
    mock.setBehaviour({ failureRate: 1, failStatus: 500 });
    const statuses = await Promise.all(
      [1, 2, 3].map(() => post('/v1/chat/completions', chat).then((r) => r.status)),
    );
    expect(statuses).toEqual([500, 500, 500]);
    mock.setBehaviour({ failureRate: 0 });
    expect((await post('/v1/chat/completions', chat)).status).toBe(200);
  });

  it('hangs: the request is recorded, the client times out', async () => {
    mock.setBehaviour({ hang: true });
    const started = Date.now();
    const err = await openai.chat.completions.create(chat, { timeout: 300 }).catch((e: unknown) => e);
    // Under Jest's VM realms the SDK cannot tell its timeout abort apart (the abort error comes
    // from Node's realm), so it reports the parent APIConnectionError; the timing proves the timeout.
    expect(err).toBeInstanceOf(OpenAI.APIConnectionError);
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
    expect(Date.now() - started).toBeLessThan(2000);
    expect(mock.requests).toHaveLength(1);
  });

  it('resets mid-stream after the first chunks, and truncates non-stream bodies', async () => {
    mock.setBehaviour({ resetMidStream: true, chunkCount: 10 });
    const received: string[] = [];
    const streamErr = await (async () => {
      for await (const chunk of await openai.chat.completions.create({ ...chat, stream: true }))
        received.push(chunk.choices[0]?.delta.content ?? '');
    })().catch((e: unknown) => e);
    // undici's TypeError('terminated') comes from Node's realm: match on the message, not instanceof.
    expect(String(streamErr)).toMatch(/terminated/);
    expect(received.length).toBeGreaterThan(0);
    expect(received.length).toBeLessThan(10);

    const claudeErr = await anthropic.messages
      .stream({ model: 'm', max_tokens: 100, messages: [{ role: 'user', content: 'x' }] })
      .finalMessage()
      .catch((e: unknown) => e);
    expect(String(claudeErr)).toMatch(/terminated/);

    const plainErr = await openai.chat.completions.create(chat).catch((e: unknown) => e);
    expect(String(plainErr)).toMatch(/terminated/); // headers arrived, the body was cut
  });
});

describe('timing knobs', () => {
  it('delays non-stream answers by latencyMs, or by x-mock-latency-ms', async () => {
    mock.setBehaviour({ latencyMs: 150 });
    let started = Date.now();
    await openai.chat.completions.create(chat);
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);
    mock.reset();
    started = Date.now();
    await openai.chat.completions.create(chat, { headers: { 'x-mock-latency-ms': '120' } });
    expect(Date.now() - started).toBeGreaterThanOrEqual(110);
  });

  it('sends stream headers at once, the first chunk after ttftMs, the rest chunkIntervalMs apart', async () => {
    mock.setBehaviour({ ttftMs: 150, chunkIntervalMs: 30, chunkCount: 5 });
    const started = Date.now();
    const res = await post('/v1/chat/completions', { ...chat, stream: true });
    expect(Date.now() - started).toBeLessThan(120);
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    const times: number[] = [];
    let text = '';
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      times.push(Date.now() - started);
      text += Buffer.from(value).toString();
    }
    expect(times[0]).toBeGreaterThanOrEqual(140);
    expect((times[times.length - 1] ?? 0) - (times[0] ?? 0)).toBeGreaterThanOrEqual(4 * 30 - 10);
    expect(text.endsWith('data: [DONE]\n\n')).toBe(true);
  });
});

describe('requireApiKey', () => {
  it('answers OpenAI 401 with invalid_api_key and Anthropic 401 authentication_error', async () => {
    mock.setBehaviour({ requireApiKey: 'sk-good-key-123' });
    const wrong = await openai.chat.completions.create(chat).catch((e: unknown) => e);
    expect(wrong).toBeInstanceOf(OpenAI.AuthenticationError);
    expect((wrong as APIError).error).toMatchObject({
      type: 'invalid_request_error',
      code: 'invalid_api_key',
      param: null,
    });
    const missing = await post('/v1/chat/completions', chat);
    expect(missing.status).toBe(401);
    expect(await missing.json()).toMatchObject({ error: { type: 'invalid_request_error', code: null } });
    const good = new OpenAI({ baseURL: `${mock.url}/v1`, apiKey: 'sk-good-key-123', maxRetries: 0 });
    expect((await good.chat.completions.create(chat)).object).toBe('chat.completion');

    const claude = await post(
      '/v1/messages',
      { model: 'm', max_tokens: 5, messages: [{ role: 'user', content: 'x' }] },
      { 'anthropic-version': '2023-06-01', 'x-api-key': 'bad' },
    );
    expect(claude.status).toBe(401);
    const body = (await claude.json()) as { request_id: string };
    expect(body).toMatchObject({
      type: 'error',
      error: { type: 'authentication_error', message: 'invalid x-api-key' },
    });
    expect(body.request_id).toMatch(/^req_/);
    const claudeOk = await post(
      '/v1/messages',
      { model: 'm', max_tokens: 5, messages: [{ role: 'user', content: 'x' }] },
      { 'anthropic-version': '2023-06-01', 'x-api-key': 'sk-good-key-123' },
    );
    expect(claudeOk.status).toBe(200);
  });
});

describe('control endpoints', () => {
  it('changes behaviour, reports stats and requests, and resets over HTTP', async () => {
    const set = await post('/__mock/behaviour', { failureRate: 1, failStatus: 503 });
    expect(set.status).toBe(200);
    expect(await set.json()).toMatchObject({ failureRate: 1, failStatus: 503 });
    expect(mock.behaviour.failStatus).toBe(503);
    expect((await post('/v1/embeddings', { model: 'm', input: 'x' })).status).toBe(503);

    const bad = await post('/__mock/behaviour', { failureRat: 1 });
    expect(bad.status).toBe(400);
    expect((await post('/__mock/behaviour', { failureRate: 2 })).status).toBe(400);

    const stats = await (await fetch(`${mock.url}/__mock/stats`)).json();
    expect(stats).toEqual({ total: 1, byPath: { '/v1/embeddings': 1 } });
    const log = (await (await fetch(`${mock.url}/__mock/requests`)).json()) as {
      requests: { path: string; body: unknown }[];
    };
    expect(log.requests.map((r) => [r.path, r.body])).toEqual([
      ['/v1/embeddings', { model: 'm', input: 'x' }],
    ]);

    expect((await post('/__mock/reset', {})).status).toBe(200);
    expect(mock.behaviour.failureRate).toBe(0);
    expect(mock.stats).toEqual({ total: 0, byPath: {} });
    expect((await post('/v1/embeddings', { model: 'm', input: 'x' })).status).toBe(200);
  });

  it('keeps a bounded request log', async () => {
    mock.setBehaviour({ requestLogSize: 2 });
    for (const input of ['a', 'b', 'c']) await post('/v1/embeddings', { model: 'm', input });
    expect(mock.requests.map((r) => (r.body as { input: string }).input)).toEqual(['b', 'c']);
    expect(mock.stats.total).toBe(3);
  });
});
