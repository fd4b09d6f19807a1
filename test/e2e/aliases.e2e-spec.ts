import Anthropic from '@anthropic-ai/sdk';
import { GoogleGenAI } from '@google/genai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import OpenAI from 'openai';
import { type GatewayConfigInput } from '#libs/config';
import { type RecordedRequest } from '#libs/testing';
import { ConsoleClient } from '../support/console-client.js';
import { eventually, type Gateway, startGateway } from '../support/gateway.js';

/**
 * Aliases end to end, in every endpoint and each Models API shape: `gpt-real` (OpenAI, upstream
 * `gpt-upstream`) has aliases `fast` and `gpt-latest`, listed; `claude-real` (Anthropic) has
 * `claude-latest`, and `gem` (Gemini, upstream `gemini-2.5-flash`) has `gem-latest`, both
 * unlisted. `other-model`, alias `secret-alias`, belongs to group `other` only.
 */
let gw: Gateway;
let key: string;
const ADMIN_TOKEN = 'aliases-admin-token-0123456789abcdef';

const model = (id: string, extra: object = {}) => ({
  id,
  owned_by: 'mock-provider',
  created: 1767225600,
  pricing: { input_per_million: 1, output_per_million: 2 },
  ...extra,
});

function config(mockUrl: string): GatewayConfigInput {
  return {
    router: { probe_interval_ms: 200, probe_timeout_ms: 500, down_after_failures: 2 },
    worker: { batch_max: 100, batch_wait_ms: 20, default_grant_credits: 10 },
    edge: { log_flush_interval_ms: 5 },
    providers: [
      {
        id: 'p-openai',
        type: 'openai',
        base_url: `${mockUrl}/v1`,
        models: [{ id: 'gpt-real', upstream: 'gpt-upstream' }, 'other-model'],
      },
      {
        id: 'p-anthropic',
        type: 'anthropic',
        base_url: mockUrl,
        probe_path: '/v1/models',
        models: ['claude-real'],
      },
      {
        id: 'p-gemini',
        type: 'gemini',
        base_url: mockUrl,
        probe_path: '/v1beta/models',
        models: [{ id: 'gem', upstream: 'gemini-2.5-flash' }],
      },
    ],
    models: [
      model('gpt-real', { aliases: ['fast', 'gpt-latest'], list_aliases: true }),
      model('claude-real', { aliases: ['claude-latest'] }),
      model('gem', { aliases: ['gem-latest'] }),
      model('other-model', { aliases: ['secret-alias'] }),
    ],
    groups: { default: ['gpt-real', 'claude-real', 'gem'], other: ['other-model'] },
  };
}

/** The SDKs hide some responses: each client's fetch keeps the last one's headers. */
let lastHeaders = new Headers();
const seeing: typeof fetch = async (input, init) => {
  const res = await fetch(input, init);
  lastHeaders = res.headers;
  return res;
};

let openai: OpenAI;
let anthropic: Anthropic;
let gemini: GoogleGenAI;

beforeAll(async () => {
  gw = await startGateway('e2e-aliases', config, { env: { CONSOLE_ADMIN_TOKEN: ADMIN_TOKEN } });
  key = (await gw.createKey()).raw;
  openai = new OpenAI({ baseURL: `${gw.edgeUrl}/v1`, apiKey: key, maxRetries: 0, fetch: seeing });
  anthropic = new Anthropic({ baseURL: gw.edgeUrl, apiKey: key, maxRetries: 0, fetch: seeing });
  gemini = new GoogleGenAI({
    apiKey: key,
    httpOptions: { baseUrl: gw.edgeUrl, apiVersion: 'v1beta', fetch: seeing },
  });
}, 30_000);

afterAll(async () => {
  await gw?.close();
});

beforeEach(() => gw.mock.reset());

/** The one request the mock got on a path (probes of the model lists aside). */
function upstreamRequest(path: string): RecordedRequest {
  const got = gw.mock.requests.filter((r) => r.path === path);
  expect(got).toHaveLength(1);
  return got[0]!;
}

/** The log row of the last request: the name the client used and the model it resolved to. */
async function logged(requested: string, resolved: string): Promise<void> {
  const row = await gw.logRow(lastHeaders.get('x-request-id')!);
  expect(row).toMatchObject({
    requested_model: requested,
    model: resolved,
    fallback_from: null,
    status: 200,
  });
}

const drain = async (stream: AsyncIterable<unknown>): Promise<void> => {
  for await (const _ of stream) void _;
};

describe('an alias in every endpoint', () => {
  it.each([false, true])(
    'chat completions (stream: %s): the model it names goes upstream',
    async (stream) => {
      const messages = [{ role: 'user' as const, content: 'hi' }];
      if (stream) await drain(await openai.chat.completions.create({ model: 'fast', messages, stream }));
      else await openai.chat.completions.create({ model: 'fast', messages });
      expect(upstreamRequest('/v1/chat/completions').body).toMatchObject({ model: 'gpt-upstream' });
      await logged('fast', 'gpt-real');
    },
  );

  it('completions, responses and embeddings', async () => {
    await openai.completions.create({ model: 'gpt-latest', prompt: 'hi' });
    expect(upstreamRequest('/v1/completions').body).toMatchObject({ model: 'gpt-upstream' });
    await logged('gpt-latest', 'gpt-real');
    await drain(await openai.responses.create({ model: 'fast', input: 'hi', stream: true }));
    expect(upstreamRequest('/v1/responses').body).toMatchObject({ model: 'gpt-upstream' });
    await logged('fast', 'gpt-real');
    await openai.embeddings.create({ model: 'fast', input: 'hi' });
    expect(upstreamRequest('/v1/embeddings').body).toMatchObject({ model: 'gpt-upstream' });
    await logged('fast', 'gpt-real');
  });

  it.each([false, true])('messages (stream: %s), and its token count', async (stream) => {
    const body = {
      model: 'claude-latest',
      max_tokens: 32,
      messages: [{ role: 'user' as const, content: 'hi' }],
    };
    if (stream) await drain(await anthropic.messages.create({ ...body, stream }));
    else await anthropic.messages.create(body);
    expect(upstreamRequest('/v1/messages').body).toMatchObject({ model: 'claude-real' });
    await logged('claude-latest', 'claude-real');
    const { input_tokens } = await anthropic.messages.countTokens({
      model: 'claude-latest',
      messages: body.messages,
    });
    expect(input_tokens).toBeGreaterThan(0);
    expect(upstreamRequest('/v1/messages/count_tokens').body).toMatchObject({ model: 'claude-real' });
    await logged('claude-latest', 'claude-real');
  });

  it.each([false, true])(
    'Gemini with the alias in the path (stream: %s), and countTokens',
    async (stream) => {
      const request = { model: 'gem-latest', contents: 'hi' };
      if (stream) await drain(await gemini.models.generateContentStream(request));
      else await gemini.models.generateContent(request);
      const method = stream ? 'streamGenerateContent' : 'generateContent';
      upstreamRequest(`/v1beta/models/gemini-2.5-flash:${method}`);
      await logged('gem-latest', 'gem');
      const { totalTokens } = await gemini.models.countTokens(request);
      expect(totalTokens).toBeGreaterThan(0);
      upstreamRequest('/v1beta/models/gemini-2.5-flash:countTokens');
      await logged('gem-latest', 'gem');
    },
  );
});

describe('an alias outside the group', () => {
  it("is as unknown as any other name; another group's model id is forbidden", async () => {
    const messages = [{ role: 'user' as const, content: 'hi' }];
    const unknown = await openai.chat.completions
      .create({ model: 'secret-alias', messages })
      .catch((e: unknown) => e);
    expect(unknown).toBeInstanceOf(OpenAI.NotFoundError);
    expect(unknown).toMatchObject({ code: 'model_not_found' });
    const row = await gw.logRow(lastHeaders.get('x-request-id')!);
    expect(row).toMatchObject({ requested_model: 'secret-alias', model: null, status: 404 });
    const forbidden = await openai.chat.completions
      .create({ model: 'other-model', messages })
      .catch((e: unknown) => e);
    expect(forbidden).toBeInstanceOf(OpenAI.PermissionDeniedError);
    const retrieved = await openai.models.retrieve('secret-alias').catch((e: unknown) => e);
    expect(retrieved).toBeInstanceOf(OpenAI.NotFoundError);
    expect(gw.mock.requests.filter((r) => r.path === '/v1/chat/completions')).toHaveLength(0);
  });
});

describe('the Models APIs', () => {
  const LISTED = ['gpt-real', 'fast', 'gpt-latest', 'claude-real', 'gem'];

  it('list the aliases of a model that lists them, in every shape, and no unlisted one', async () => {
    const ids: string[] = [];
    for await (const m of openai.models.list()) ids.push(m.id);
    expect(ids).toEqual(LISTED);
    const claudeIds: string[] = [];
    for await (const m of anthropic.models.list()) claudeIds.push(m.id);
    expect(claudeIds).toEqual(LISTED);
    const names: string[] = [];
    for await (const m of await gemini.models.list()) names.push(m.name!);
    expect(names).toEqual(LISTED.map((id) => `models/${id}`));
  });

  it('retrieve a listed alias under its own id, an unlisted one as the model it names', async () => {
    expect((await openai.models.retrieve('fast')).id).toBe('fast');
    expect((await openai.models.retrieve('claude-latest')).id).toBe('claude-real');
    expect((await anthropic.models.retrieve('claude-latest')).id).toBe('claude-real');
    expect((await gemini.models.get({ model: 'gem-latest' })).name).toBe('models/gem');
  });
});

describe('aliases and fallbacks edited live (/api/admin/config)', () => {
  const admin = () => new ConsoleClient(gw.consoleUrl, ADMIN_TOKEN);
  type Doc = { models: { id: string; aliases?: string[]; fallbacks?: string[] }[] };

  it('refuses an alias naming a model and a fallback cycle, naming the field', async () => {
    const { body } = await admin().request('GET', '/api/admin/config');
    const doc = body.document as Doc;
    const bad = (edit: (m: Doc['models'][number]) => object) => ({
      document: {
        ...doc,
        models: doc.models.map((m) => (m.id === 'gpt-real' || m.id === 'gem' ? edit(m) : m)),
      },
    });
    const alias = await admin().request(
      'POST',
      '/api/admin/config/validate',
      bad((m) => (m.id === 'gem' ? { ...m, aliases: ['claude-real'] } : m)),
    );
    expect(alias.body).toMatchObject({
      ok: false,
      issues: [{ path: 'models[2].aliases[0]', message: 'alias claude-real is the id of a model' }],
    });
    const cycle = await admin().request(
      'POST',
      '/api/admin/config/validate',
      bad((m) => ({ ...m, fallbacks: [m.id === 'gem' ? 'gpt-real' : 'gem'] })),
    );
    expect(cycle.body).toMatchObject({
      ok: false,
      issues: [
        {
          path: expect.stringMatching(/^models\[\d\]\.fallbacks\[0\]$/),
          message: expect.stringMatching(/^fallback cycle: /),
        },
      ],
    });
  });

  it('serves and lists an alias added in a new version', async () => {
    const { body } = await admin().request('GET', '/api/admin/config');
    const doc = body.document as Doc;
    const models = doc.models.map((m) =>
      m.id === 'gpt-real' ? { ...m, aliases: [...(m.aliases ?? []), 'newest'] } : m,
    );
    const saved = await admin().request('PUT', '/api/admin/config', {
      base_version: body.version,
      document: { ...doc, models },
    });
    expect(saved.status).toBe(200);
    await eventually(async () => {
      const ids: string[] = [];
      for await (const m of openai.models.list()) ids.push(m.id);
      return ids.includes('newest') ? true : undefined;
    });
    await openai.chat.completions.create({ model: 'newest', messages: [{ role: 'user', content: 'hi' }] });
    await logged('newest', 'gpt-real');
  });
});
