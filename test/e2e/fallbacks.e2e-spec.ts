import Anthropic from '@anthropic-ai/sdk';
import { GoogleGenAI } from '@google/genai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import OpenAI from 'openai';
import { type GatewayConfigInput } from '#libs/config';
import { insertBudget } from '#libs/db';
import { type MockBehaviourPatch, type MockProvider } from '#libs/testing';
import { type Gateway, startGateway } from '../support/gateway.js';

/**
 * Fallback chains end to end, every client format through its official SDK, stream and not.
 * Model `a` (mock 0, window 20 tokens) falls back to `small` (window 10), then `b` (window 1000),
 * both on mock 1; `dead`'s only provider has no key (no healthy provider at all) and falls back to
 * `b`. Groups: `default` has them all, `narrow` has no `small`, `solo` only `a`, and `off` switches
 * fallbacks off. Embeddings model `emb-a` falls back to `claude-c` (Anthropic, which serves no
 * embeddings) then `emb-b`.
 */
let gw: Gateway;
let primary: MockProvider;
let secondary: MockProvider;
const keys: Record<string, string> = {};

const price = (input: number) => ({ input_per_million: input, output_per_million: 2 * input });
const model = (id: string, input: number, extra: object = {}) => ({
  id,
  owned_by: 'mock-provider',
  created: 1767225600,
  pricing: price(input),
  ...extra,
});

function config(_: string, urls: readonly string[]): GatewayConfigInput {
  return {
    router: { probe_interval_ms: 200, probe_timeout_ms: 500, down_after_failures: 2 },
    worker: { batch_max: 100, batch_wait_ms: 20, default_grant_credits: 10 },
    edge: { log_flush_interval_ms: 5 },
    routing: { first_byte_timeout_ms: 300, sample_flush_interval_ms: 50, provider_header: true },
    providers: [
      { id: 'p0', type: 'openai', base_url: `${urls[0]}/v1`, models: ['a', 'emb-a', 'emb-x'] },
      { id: 'p1', type: 'openai', base_url: `${urls[1]}/v1`, models: ['small', 'b', 'emb-b'] },
      { id: 'pc', type: 'anthropic', base_url: urls[1]!, probe_path: '/v1/models', models: ['claude-c'] },
      {
        id: 'pd',
        type: 'openai',
        base_url: `${urls[0]}/v1`,
        api_key_env: 'FALLBACK_E2E_UNSET_KEY',
        models: ['dead'],
      },
    ],
    models: [
      model('a', 1, { context_window: 20, aliases: ['fast'], fallbacks: ['small', 'b'] }),
      model('small', 3, { context_window: 10 }),
      model('b', 10, { context_window: 1000 }),
      model('dead', 1, { fallbacks: ['b'] }),
      model('emb-a', 1, { fallbacks: ['claude-c', 'emb-b'] }),
      model('emb-x', 1, { fallbacks: ['claude-c'] }),
      model('emb-b', 1),
      model('claude-c', 1),
    ],
    groups: {
      default: ['a', 'small', 'b', 'dead', 'emb-a', 'emb-x', 'emb-b', 'claude-c'],
      narrow: ['a', 'b'],
      solo: ['a'],
      off: { models: ['a', 'small', 'b'], fallbacks: false },
    },
  };
}

beforeAll(async () => {
  gw = await startGateway('e2e-fallbacks', config, { mocks: 2 });
  [primary, secondary] = gw.mocks as [MockProvider, MockProvider];
  for (const group of ['default', 'narrow', 'solo', 'off'])
    keys[group] = (await gw.createKey({ email: `fallbacks-${group}@example.com`, group })).raw;
}, 30_000);

afterAll(async () => {
  await gw?.close();
});

beforeEach(() => {
  primary.reset();
  secondary.reset();
});

type Format = 'chat' | 'completions' | 'responses' | 'messages' | 'gemini';
const FORMATS: readonly Format[] = ['chat', 'completions', 'responses', 'messages', 'gemini'];

/** What a client saw: the answer's model field, the response headers, its text. */
interface Seen {
  readonly model: string | undefined;
  readonly headers: Headers;
  readonly text: string;
}

/** The SDKs hide some responses: each client's fetch keeps the last one's headers. */
let lastHeaders = new Headers();
const seeing: typeof fetch = async (input, init) => {
  const res = await fetch(input, init);
  lastHeaders = res.headers;
  return res;
};

const openai = (key: string) =>
  new OpenAI({ baseURL: `${gw.edgeUrl}/v1`, apiKey: key, maxRetries: 0, fetch: seeing });
const anthropic = (key: string) =>
  new Anthropic({ baseURL: gw.edgeUrl, apiKey: key, maxRetries: 0, fetch: seeing });
const gemini = (key: string) =>
  new GoogleGenAI({ apiKey: key, httpOptions: { baseUrl: gw.edgeUrl, apiVersion: 'v1beta', fetch: seeing } });

/** One request of `format` for `model`, read to its end. */
async function ask(
  format: Format,
  model: string,
  stream: boolean,
  prompt = 'hi',
  key = keys.default!,
): Promise<Seen> {
  let answered: string | undefined;
  let text = '';
  switch (format) {
    case 'chat': {
      const messages = [{ role: 'user' as const, content: prompt }];
      if (!stream) {
        const c = await openai(key).chat.completions.create({ model, messages });
        [answered, text] = [c.model, c.choices[0]?.message.content ?? ''];
        break;
      }
      for await (const chunk of await openai(key).chat.completions.create({ model, messages, stream })) {
        answered = chunk.model;
        text += chunk.choices[0]?.delta.content ?? '';
      }
      break;
    }
    case 'completions': {
      if (!stream) {
        const c = await openai(key).completions.create({ model, prompt });
        [answered, text] = [c.model, c.choices[0]?.text ?? ''];
        break;
      }
      for await (const chunk of await openai(key).completions.create({ model, prompt, stream })) {
        answered = chunk.model;
        text += chunk.choices[0]?.text ?? '';
      }
      break;
    }
    case 'responses': {
      if (!stream) {
        const r = await openai(key).responses.create({ model, input: prompt });
        [answered, text] = [r.model, r.output_text];
        break;
      }
      for await (const event of await openai(key).responses.create({ model, input: prompt, stream })) {
        if (event.type === 'response.output_text.delta') text += event.delta;
        if (event.type === 'response.completed') answered = event.response.model;
      }
      break;
    }
    case 'messages': {
      const body = { model, max_tokens: 64, messages: [{ role: 'user' as const, content: prompt }] };
      if (!stream) {
        const m = await anthropic(key).messages.create(body);
        [answered, text] = [m.model, m.content.map((b) => (b.type === 'text' ? b.text : '')).join('')];
        break;
      }
      for await (const event of await anthropic(key).messages.create({ ...body, stream })) {
        if (event.type === 'message_start') answered = event.message.model;
        if (event.type === 'content_block_delta' && event.delta.type === 'text_delta')
          text += event.delta.text;
      }
      break;
    }
    case 'gemini': {
      const request = { model, contents: prompt };
      if (!stream) {
        const g = await gemini(key).models.generateContent(request);
        [answered, text] = [g.modelVersion, g.text ?? ''];
        break;
      }
      for await (const chunk of await gemini(key).models.generateContentStream(request)) {
        answered = chunk.modelVersion ?? answered;
        text += chunk.text ?? '';
      }
      break;
    }
  }
  return { model: answered, headers: lastHeaders, text };
}

/** The status of a refused request (its SDK's error), with the request id to find its log row. */
async function refused(p: Promise<unknown>): Promise<{ status: number; requestId: string }> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(OpenAI.APIError);
  const { status, headers } = err as InstanceType<typeof OpenAI.APIError>;
  return { status: status!, requestId: headers!.get('x-request-id')! };
}

const chatCount = (mock: MockProvider): number => mock.stats.byPath['/v1/chat/completions'] ?? 0;

/** A prompt of 100 tokens as the mock counts them: over `a`'s window of 20, within `b`'s 1000. */
const LONG = 'long '.repeat(80);

interface Trigger {
  readonly name: string;
  /** What mock 0 (model `a`'s provider) does. */
  readonly fault: MockBehaviourPatch;
  readonly model: string;
  readonly prompt: string;
  /** The model expected to answer, and the outcome of the attempt that missed (none: no provider). */
  readonly answers: string;
  readonly missed: { readonly status: number; readonly outcome: string; readonly reason?: string } | null;
}

const TRIGGERS: readonly Trigger[] = [
  {
    name: 'no healthy provider (its only one has no key)',
    fault: {},
    model: 'dead',
    prompt: 'hi',
    answers: 'b',
    missed: null,
  },
  {
    name: '5xx before the first byte',
    fault: { failureRate: 1, failStatus: 503 },
    model: 'a',
    prompt: 'hi',
    answers: 'small',
    missed: { status: 503, outcome: 'http_error' },
  },
  {
    name: '429',
    fault: { failureRate: 1, failStatus: 429 },
    model: 'a',
    prompt: 'hi',
    answers: 'small',
    missed: { status: 429, outcome: 'http_error' },
  },
  {
    name: 'no answer before the first-byte timeout',
    fault: { hang: true },
    model: 'a',
    prompt: 'hi',
    answers: 'small',
    missed: { status: 0, outcome: 'timeout' },
  },
  {
    // `small` holds less than `a`: only `b`, whose window is larger, may take the prompt.
    name: 'a prompt too long for the window',
    fault: { contextWindow: 20 },
    model: 'a',
    prompt: LONG,
    answers: 'b',
    missed: { status: 400, outcome: 'http_error', reason: 'prompt too long for the context window' },
  },
];

/** OpenAI's Responses API refuses a streamed prompt too long in-band, its stream begun (HTTP 200). */
const missedStatus = (trigger: Trigger, format: Format, stream: boolean): number =>
  trigger.missed?.reason !== undefined && format === 'responses' && stream
    ? 200
    : (trigger.missed?.status ?? 0);

describe.each(TRIGGERS)('falls back on $name', (trigger) => {
  it.each(FORMATS.flatMap((format) => [false, true].map((stream) => [format, stream] as const)))(
    '%s (stream: %s): the fallback answers, and the answer, its headers and its log say so',
    async (format, stream) => {
      primary.setBehaviour(trigger.fault);
      const seen = await ask(format, trigger.model, stream, trigger.prompt);
      expect(seen.text).toMatch(/^This is a mock reply to:/);
      expect(seen.model).toBe(trigger.answers);
      expect(seen.headers.get('x-gateway-model')).toBe(trigger.answers);
      expect(seen.headers.get('x-gateway-fallback-from')).toBe(trigger.model);
      expect(seen.headers.get('x-gateway-provider')).toBe('p1');
      const row = await gw.logRow(seen.headers.get('x-request-id')!);
      expect(row).toMatchObject({
        model: trigger.answers,
        requested_model: trigger.model,
        fallback_from: trigger.model,
        provider_id: 'p1',
        status: 200,
        stream,
      });
      const last = { providerId: 'p1', status: 200, outcome: 'ok', model: trigger.answers };
      const missed = trigger.missed && {
        providerId: 'p0',
        ...trigger.missed,
        status: missedStatus(trigger, format, stream),
        model: trigger.model,
      };
      expect(row.attempts).toEqual(
        [missed, last].filter((a) => a !== null).map((a) => expect.objectContaining(a)),
      );
      // Charged at the prices of the model that answered.
      const prices = row.prices as { input: number } | null;
      expect(prices?.input).toBe(trigger.answers === 'b' ? 10e9 : 3e9);
    },
    20_000,
  );
});

describe('what a fallback never does', () => {
  it('leave the models of the key group: `narrow` skips `small`, `solo` has none to go to', async () => {
    primary.setBehaviour({ failureRate: 1, failStatus: 500 });
    const narrow = await ask('chat', 'a', false, 'hi', keys.narrow);
    expect(narrow.headers.get('x-gateway-model')).toBe('b');
    const before = chatCount(secondary);
    const solo = await refused(
      openai(keys.solo!).chat.completions.create({ model: 'a', messages: [{ role: 'user', content: 'hi' }] }),
    );
    expect(solo.status).toBe(502);
    expect(chatCount(secondary)).toBe(before);
    expect(await gw.logRow(solo.requestId)).toMatchObject({ model: 'a', fallback_from: null });
  });

  it('happen for a group that switches fallbacks off', async () => {
    primary.setBehaviour({ failureRate: 1, failStatus: 500 });
    const off = await refused(
      openai(keys.off!).chat.completions.create({ model: 'a', messages: [{ role: 'user', content: 'hi' }] }),
    );
    expect(off.status).toBe(502);
    expect(chatCount(secondary)).toBe(0);
  });

  it('cross into a model the endpoint cannot reach: embeddings pass over the Anthropic-only model', async () => {
    primary.setBehaviour({ failureRate: 1, failStatus: 500 });
    const { data, response } = await openai(keys.default!)
      .embeddings.create({ model: 'emb-a', input: 'hello' })
      .withResponse();
    expect(data.data[0]!.embedding.length).toBeGreaterThan(0);
    expect(response.headers.get('x-gateway-model')).toBe('emb-b');
    const none = await refused(openai(keys.default!).embeddings.create({ model: 'emb-x', input: 'hello' }));
    expect(none.status).toBe(502);
    expect(secondary.requests.some((r) => r.path.startsWith('/v1/messages'))).toBe(false);
  });

  it('happen after a byte reached the client: a stream broken mid-way stays broken', async () => {
    primary.setBehaviour({ resetMidStream: true, chunkCount: 6 });
    const stream = await openai(keys.default!).chat.completions.create({
      model: 'a',
      stream: true,
      messages: [{ role: 'user', content: 'hi' }],
    });
    const failure = await (async () => {
      for await (const _ of stream) void _;
    })().catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(OpenAI.APIError);
    expect(lastHeaders.get('x-gateway-fallback-from')).toBeNull();
    expect(chatCount(secondary)).toBe(0);
    const row = await gw.logRow(lastHeaders.get('x-request-id')!);
    expect(row).toMatchObject({ model: 'a', fallback_from: null, error_code: 'upstream_stream_error' });
  });

  it("take a request error of the client's own for a refusal: a 400 passes as it is", async () => {
    primary.setBehaviour({ failureRate: 1, failStatus: 400 });
    const bad = await refused(
      openai(keys.default!).chat.completions.create({
        model: 'a',
        messages: [{ role: 'user', content: 'hi' }],
      }),
    );
    expect(bad.status).toBe(400);
    expect(chatCount(secondary)).toBe(0);
  });

  it('go past a budget of the model it would fall back to: `small` spent, `b` answers', async () => {
    const key = await gw.createKey({ email: 'fallbacks-budget@example.com' });
    await insertBudget(gw.db.db, {
      user_id: key.userId,
      key_id: key.id,
      period: 'lifetime',
      window_kind: 'calendar_utc',
      limit_nanos: '1',
      model_group: null,
      models: ['small'],
    });
    // Within the budget before its first charge; the charge rides in the next admission.
    expect((await ask('chat', 'small', false, 'hi', key.raw)).headers.get('x-gateway-model')).toBeNull();
    primary.setBehaviour({ failureRate: 1, failStatus: 500 });
    const seen = await ask('chat', 'a', false, 'hi', key.raw);
    expect(seen.headers.get('x-gateway-model')).toBe('b');
  });

  it('hide the too-long refusal from the client when no larger model is left (`solo`)', async () => {
    primary.setBehaviour({ contextWindow: 20 });
    const err = await openai(keys.solo!)
      .chat.completions.create({ model: 'a', messages: [{ role: 'user', content: LONG }] })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.BadRequestError);
    expect((err as InstanceType<typeof OpenAI.BadRequestError>).code).toBe('context_length_exceeded');
  });
});

describe('an alias with fallbacks', () => {
  it('logs the name the client used, the model it resolved to, and the one that answered', async () => {
    primary.setBehaviour({ failureRate: 1, failStatus: 500 });
    const seen = await ask('chat', 'fast', false);
    expect(seen.headers.get('x-gateway-fallback-from')).toBe('a');
    const row = await gw.logRow(seen.headers.get('x-request-id')!);
    expect(row).toMatchObject({ requested_model: 'fast', fallback_from: 'a', model: 'small' });
  });
});
