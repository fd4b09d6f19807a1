import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import OpenAI from 'openai';
import { type GatewayConfigInput } from '#libs/config';
import { textCounterFor, tokenizerFamilyOf } from '#libs/providers';
import { type Gateway, startGateway } from '../support/gateway.js';

/**
 * Across formats: upstream errors in the client's shape, what a target cannot express, streams
 * failing mid-way, client hang-ups, and failover between providers of different types (each
 * attempt translated for its own candidate). Mock 0 plays Anthropic, mock 1 OpenAI.
 */
let gw: Gateway;
let openai: OpenAI;
let anthropic: Anthropic;
let key: string;

function config(_: string, [claudeUrl, gptUrl]: readonly string[]): GatewayConfigInput {
  const model = (id: string) => ({
    id,
    owned_by: 'mock-provider',
    created: 1767225600,
    pricing: { input_per_million: 1, output_per_million: 2 },
  });
  return {
    // Breakers out of the way: the failures injected here must not take a provider out of routing.
    router: {
      probe_interval_ms: 200,
      probe_timeout_ms: 500,
      down_after_failures: 2,
      breaker: { consecutive_failures: 1000, min_samples: 1000 },
    },
    worker: { batch_max: 100, batch_wait_ms: 20, default_grant_credits: 10 },
    edge: { log_flush_interval_ms: 5 },
    routing: { provider_header: true, local_breaker_failures: 1000 },
    providers: [
      {
        id: 'p-claude',
        type: 'anthropic',
        base_url: claudeUrl!,
        probe_path: '/v1/models',
        models: ['m-claude', 'm-mixed'],
        priority: 0,
      },
      { id: 'p-gpt', type: 'openai', base_url: `${gptUrl}/v1`, models: ['m-gpt', 'm-mixed'], priority: 1 },
    ],
    models: ['m-claude', 'm-gpt', 'm-mixed'].map(model),
    groups: { default: ['m-claude', 'm-gpt', 'm-mixed'] },
  };
}

beforeAll(async () => {
  gw = await startGateway('e2e-translation', config, { mocks: 2 });
  key = (await gw.createKey()).raw;
  openai = new OpenAI({ baseURL: `${gw.edgeUrl}/v1`, apiKey: key, maxRetries: 0 });
  anthropic = new Anthropic({ baseURL: gw.edgeUrl, apiKey: key, maxRetries: 0 });
}, 30_000);

afterAll(async () => {
  await gw?.close();
});

const [claudeMock, gptMock] = [() => gw.mocks[0]!, () => gw.mocks[1]!];
const user = (content: string) => [{ role: 'user' as const, content }];
type OpenAIError = InstanceType<typeof OpenAI.APIError>;
type AnthropicError = InstanceType<typeof Anthropic.APIError>;

describe('upstream errors in the client format', () => {
  it("an Anthropic 400 reaches a chat client as shape A 400 with the provider's message", async () => {
    claudeMock().setBehaviour({ failureRate: 1, failStatus: 400, failurePath: '/v1/messages' });
    try {
      const err = (await openai.chat.completions
        .create({ model: 'm-claude', messages: user('hi') })
        .catch((e: unknown) => e)) as OpenAIError;
      expect(err).toBeInstanceOf(OpenAI.BadRequestError);
      expect(err.error).toEqual({
        message: 'Mock injected invalid_request_error.',
        type: 'invalid_request_error',
        param: null,
        code: 'invalid_request',
      });
    } finally {
      claudeMock().reset();
    }
  });

  it('a 429 with retry-after reaches a messages client as shape B rate_limit_error with retry-after', async () => {
    gptMock().setBehaviour({
      failureRate: 1,
      failStatus: 429,
      retryAfterSeconds: 7,
      failurePath: '/v1/chat/completions',
    });
    try {
      const err = (await anthropic.messages
        .create({ model: 'm-gpt', max_tokens: 50, messages: user('hi') })
        .catch((e: unknown) => e)) as AnthropicError;
      expect(err).toBeInstanceOf(Anthropic.RateLimitError);
      expect(err.headers?.get('retry-after')).toBe('7');
      expect(err.error).toEqual({
        type: 'error',
        error: { type: 'rate_limit_error', message: expect.any(String) },
      });
    } finally {
      gptMock().reset();
    }
  });

  it('a provider 5xx with nowhere to fail over becomes 502 in the client format', async () => {
    claudeMock().setBehaviour({ failureRate: 1, failStatus: 500, failurePath: '/v1/messages' });
    try {
      const err = (await openai.responses
        .create({ model: 'm-claude', input: 'hi' })
        .catch((e: unknown) => e)) as OpenAIError;
      expect(err.status).toBe(502);
      expect(err.error).toMatchObject({ type: 'api_error', code: 'upstream_error' });
    } finally {
      claudeMock().reset();
    }
  });

  it('what the target cannot express is a clear 400 naming the field, in the client format', async () => {
    const chat = (await openai.chat.completions
      .create({ model: 'm-claude', messages: user('hi'), n: 2 })
      .catch((e: unknown) => e)) as OpenAIError;
    expect(chat).toBeInstanceOf(OpenAI.BadRequestError);
    expect(chat.error).toMatchObject({ type: 'invalid_request_error', param: 'n' });
    const messages = (await anthropic.messages
      .create({ model: 'm-gpt', max_tokens: 50, messages: user('hi'), top_k: 5 } as never)
      .catch((e: unknown) => e)) as AnthropicError;
    expect(messages).toBeInstanceOf(Anthropic.BadRequestError);
    expect(messages.error).toEqual({
      type: 'error',
      error: { type: 'invalid_request_error', message: expect.stringMatching(/top_k/) },
    });
  });
});

describe('translated streams that break', () => {
  it('a chat stream from an Anthropic provider that errors mid-way ends with an error the SDK throws; logged', async () => {
    claudeMock().setBehaviour({ midStreamError: true, chunkCount: 6 });
    try {
      const { data: stream, response } = await openai.chat.completions
        .create({ model: 'm-claude', stream: true, messages: user('break') })
        .withResponse();
      const chunks: unknown[] = [];
      const err = await (async () => {
        for await (const c of stream) chunks.push(c);
      })().catch((e: unknown) => e);
      expect(chunks.length).toBeGreaterThan(0);
      expect(err).toBeInstanceOf(OpenAI.APIError);
      const row = await gw.logRow(response.headers.get('x-request-id')!);
      expect(row).toMatchObject({ error_code: 'upstream_stream_error', provider_id: 'p-claude' });
      expect(row.attempts).toEqual([
        { providerId: 'p-claude', status: 200, outcome: 'stream_error', latencyMs: expect.any(Number) },
      ]);
    } finally {
      claudeMock().reset();
    }
  });

  it('a messages stream from an OpenAI provider cut mid-way ends with an Anthropic error event', async () => {
    gptMock().setBehaviour({ resetMidStream: true, chunkCount: 6 });
    try {
      const stream = anthropic.messages.stream({ model: 'm-gpt', max_tokens: 50, messages: user('cut') });
      const err = await stream.finalMessage().catch((e: unknown) => e);
      expect(err).toBeInstanceOf(Anthropic.APIError);
      const { response } = await stream.withResponse();
      expect((await gw.logRow(response.headers.get('x-request-id')!)).error_code).toBe(
        'upstream_stream_error',
      );
    } finally {
      gptMock().reset();
    }
  });

  it('a client hanging up on a translated stream aborts the upstream and is charged an estimate', async () => {
    // A 10 s answer: a request logged long before it ended was cut off, on however loaded a runner.
    gptMock().setBehaviour({ chunkCount: 400, chunkIntervalMs: 25 });
    try {
      const abort = new AbortController();
      const res = await fetch(`${gw.edgeUrl}/v1/messages`, {
        method: 'POST',
        signal: abort.signal,
        headers: { 'content-type': 'application/json', 'x-api-key': key },
        body: JSON.stringify({
          model: 'm-gpt',
          max_tokens: 1000,
          stream: true,
          messages: user('A long story please'),
        }),
      });
      const reader = res.body!.getReader();
      let seen = '';
      while (!seen.includes('text_delta')) seen += new TextDecoder().decode((await reader.read()).value);
      abort.abort();
      const row = await gw.logRow(res.headers.get('x-request-id')!);
      expect(row.error_code).toBe('client_disconnected');
      expect(row.latency_ms).toBeLessThan(400 * 25);
      // The prompt's text ('user' + 'A long story please') and the text so far, counted with the
      // tokenizer of the model's family (o200k for an unknown model), not ceil(chars / 4) = 6.
      const count = await textCounterFor(tokenizerFamilyOf(['m-gpt']));
      expect(Number(row.input_tokens)).toBe(count('userA long story please'));
      expect(Number(row.output_tokens)).toBeGreaterThan(0);
      expect(Number(row.output_tokens)).toBeLessThan(400);
    } finally {
      gptMock().reset();
    }
  });
});

describe('failover across provider types', () => {
  it('a failing Anthropic candidate is followed by an OpenAI one, each attempt in its own format', async () => {
    claudeMock().setBehaviour({ failureRate: 1, failStatus: 500, failurePath: '/v1/messages' });
    try {
      const { data: chat, response: r1 } = await openai.chat.completions
        .create({ model: 'm-mixed', messages: user('fail over') })
        .withResponse();
      expect(r1.headers.get('x-gateway-provider')).toBe('p-gpt');
      expect(chat.choices[0]!.message.content).toMatch(/mock reply to: fail over/);
      const { data: msg, response: r2 } = await anthropic.messages
        .create({ model: 'm-mixed', max_tokens: 100, messages: user('fail over') })
        .withResponse();
      expect(r2.headers.get('x-gateway-provider')).toBe('p-gpt');
      expect(msg.content[0]).toMatchObject({
        type: 'text',
        text: expect.stringMatching(/mock reply to: fail over/),
      });
      for (const r of [r1, r2]) {
        const row = await gw.logRow(r.headers.get('x-request-id')!);
        expect(row.attempts.map((a) => [a.providerId, a.status])).toEqual([
          ['p-claude', 500],
          ['p-gpt', 200],
        ]);
      }
      // The Anthropic attempt of the chat request was translated; the messages one was native.
      const sent = claudeMock()
        .requests.filter((r) => r.path === '/v1/messages')
        .slice(-2);
      expect(sent.map((r) => (r.body as { max_tokens: number }).max_tokens)).toEqual([
        expect.any(Number),
        100,
      ]);
    } finally {
      claudeMock().reset();
    }
  });
});
