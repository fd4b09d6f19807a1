import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import OpenAI from 'openai';
import { displayPrefix, generateApiKey, hashApiKey } from '#libs/auth';
import { type GatewayConfigInput } from '#libs/config';
import { findOrCreateUserByEmail, getQuotaBalance, insertApiKey } from '#libs/db';
import { anthropic as anthropicAdapter } from '#libs/providers';
import { type Gateway, startGateway, testConfigWithAnthropic } from '../support/gateway.js';

/**
 * The calls coding agents make besides generation: token counting (upstream to an Anthropic
 * provider, or counted here), the model list in either vendor's shape, and the root URL.
 */
let gw: Gateway;
let key: { raw: string; userId: string };
let claude: Anthropic;
let openai: OpenAI;

/** `mock-claude` on the Anthropic mock; `claude-failover` there first, then on a second mock. */
function config(mockUrl: string, mockUrls: readonly string[]): GatewayConfigInput {
  const base = testConfigWithAnthropic(mockUrl, ['mock-claude', 'claude-failover']);
  return {
    ...base,
    providers: [
      ...base.providers,
      {
        id: 'anthropic-b',
        type: 'anthropic',
        base_url: mockUrls[1]!,
        priority: 1,
        models: ['claude-failover'],
      },
    ],
  };
}

beforeAll(async () => {
  gw = await startGateway('e2e-agent-routes', config, { mocks: 2 });
  key = await gw.createKey();
  claude = new Anthropic({ baseURL: gw.edgeUrl, apiKey: key.raw, maxRetries: 0 });
  openai = new OpenAI({ baseURL: `${gw.edgeUrl}/v1`, apiKey: key.raw, maxRetries: 0 });
}, 30_000);

afterAll(async () => {
  await gw?.close();
});

const countRequests = () => gw.mock.requests.filter((r) => r.path === '/v1/messages/count_tokens');
const durableBalance = async (userId: string) =>
  BigInt((await getQuotaBalance(gw.db.db, userId))?.balance_nanos ?? 0);
const chargesOf = (userId: string) =>
  gw.db.db.selectFrom('charges').select('request_id').where('user_id', '=', userId).execute();

const TURN = {
  system: 'You are a careful coding agent.',
  messages: [
    { role: 'user' as const, content: 'List the files' },
    {
      role: 'assistant' as const,
      content: [{ type: 'tool_use' as const, id: 'toolu_1', name: 'ls', input: { path: '.' } }],
    },
    {
      role: 'user' as const,
      content: [{ type: 'tool_result' as const, tool_use_id: 'toolu_1', content: 'README.md\npackage.json' }],
    },
  ],
  tools: [
    {
      name: 'ls',
      description: 'List a directory',
      input_schema: { type: 'object' as const, properties: { path: { type: 'string' } } },
    },
  ],
};

describe('POST /v1/messages/count_tokens', () => {
  it('passes a model served by an Anthropic provider through to it; logged at cost 0, balance untouched', async () => {
    const before = await durableBalance(key.userId);
    const { data, response } = await claude.messages
      .countTokens({ model: 'mock-claude', ...TURN })
      .withResponse();
    const sent = countRequests().at(-1)!;
    expect(sent.body).toEqual({ model: 'mock-claude', ...TURN });
    expect(sent.headers['anthropic-version']).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(sent.headers['x-api-key']).not.toBe(key.raw); // the provider's key, never the client's
    // The mock's deterministic count: a quarter of the characters of text and tool JSON.
    const chars =
      TURN.system.length +
      'List the files'.length +
      'README.md\npackage.json'.length +
      JSON.stringify(TURN.tools).length;
    expect(data).toEqual({ input_tokens: Math.ceil(chars / 4) });
    const requestId = response.headers.get('x-request-id')!;
    const row = await gw.logRow(requestId);
    expect(row).toMatchObject({
      endpoint: '/v1/messages/count_tokens',
      model: 'mock-claude',
      provider_id: 'mock-anthropic',
      status: 200,
      error_code: null,
    });
    expect(Number(row.cost_nanos)).toBe(0);
    // The log's batch is committed, so a charge would be too: there is none, the balance is as it was.
    expect(await chargesOf(key.userId)).toEqual([]);
    expect(await durableBalance(key.userId)).toBe(before);
  });

  it('counts a model of an OpenAI-format provider here with its tokenizer; the provider sees nothing', async () => {
    const sentBefore = gw.mock.requests.length;
    const { data, response } = await claude.messages
      .countTokens({ model: 'mock-gpt', ...TURN })
      .withResponse();
    expect(data).toEqual({
      input_tokens: await anthropicAdapter.countMessagesTokens({ model: 'mock-gpt', ...TURN }, 'o200k'),
    });
    expect(data.input_tokens).toBeGreaterThan(20);
    expect(gw.mock.requests.slice(sentBefore).filter((r) => !r.path.endsWith('/models'))).toEqual([]);
    const row = await gw.logRow(response.headers.get('x-request-id')!);
    expect(row).toMatchObject({ endpoint: '/v1/messages/count_tokens', model: 'mock-gpt', status: 200 });
    expect(row.provider_id).toBeNull();
    expect(Number(row.cost_nanos)).toBe(0);
    expect(await chargesOf(key.userId)).toEqual([]);
  });

  it('fails over from an Anthropic provider answering 5xx to the next one', async () => {
    gw.mock.setBehaviour({ failureRate: 1, failStatus: 503, failurePath: '/v1/messages/count_tokens' });
    try {
      const { data, response } = await claude.messages
        .countTokens({ model: 'claude-failover', messages: [{ role: 'user', content: 'Hello' }] })
        .withResponse();
      expect(data).toEqual({ input_tokens: 2 });
      const row = await gw.logRow(response.headers.get('x-request-id')!);
      expect(row.provider_id).toBe('anthropic-b');
      expect(row.attempts.map((a) => [a.providerId, a.status])).toEqual([
        ['mock-anthropic', 503],
        ['anthropic-b', 200],
      ]);
    } finally {
      gw.mock.setBehaviour({ failureRate: 0, failurePath: null });
    }
  });

  it('answers a key without credits: counting is free, so it is not admitted against the balance', async () => {
    const { user } = await findOrCreateUserByEmail(gw.db.db, 'broke@example.com', 0);
    const raw = generateApiKey();
    await insertApiKey(gw.db.db, {
      user_id: user.id,
      key_hash: hashApiKey(raw),
      display_prefix: displayPrefix(raw),
      group_name: 'default',
    });
    const broke = new Anthropic({ baseURL: gw.edgeUrl, authToken: raw, apiKey: null, maxRetries: 0 });
    const hello = { model: 'mock-claude', messages: [{ role: 'user' as const, content: 'Hello' }] };
    expect(await broke.messages.countTokens(hello)).toEqual({ input_tokens: 2 });
    // Admission refuses this user every generation request (429 insufficient_quota, quota.e2e-spec).
    expect(await durableBalance(user.id)).toBe(0n);
  });

  it('validates like Anthropic and answers errors in shape B', async () => {
    const noMessages = await claude.messages
      .countTokens({ model: 'mock-gpt' } as unknown as Anthropic.MessageCountTokensParams)
      .catch((e: unknown) => e);
    expect(noMessages).toBeInstanceOf(Anthropic.BadRequestError);
    expect((noMessages as InstanceType<typeof Anthropic.APIError>).error).toEqual({
      type: 'error',
      error: { type: 'invalid_request_error', message: 'messages: Field required' },
    });
    const noModel = await claude.messages
      .countTokens({
        messages: [{ role: 'user', content: 'hi' }],
      } as unknown as Anthropic.MessageCountTokensParams)
      .catch((e: unknown) => e);
    expect(noModel).toBeInstanceOf(Anthropic.BadRequestError);
    const unknown = await claude.messages
      .countTokens({ model: 'no-such-model', messages: [{ role: 'user', content: 'hi' }] })
      .catch((e: unknown) => e);
    expect(unknown).toBeInstanceOf(Anthropic.NotFoundError);
    const bad = new Anthropic({ baseURL: gw.edgeUrl, apiKey: 'sk-' + 'x'.repeat(48), maxRetries: 0 });
    const denied = (await bad.messages
      .countTokens({ model: 'mock-claude', messages: [{ role: 'user', content: 'hi' }] })
      .catch((e: unknown) => e)) as InstanceType<typeof Anthropic.APIError>;
    expect(denied).toBeInstanceOf(Anthropic.AuthenticationError);
    expect(denied.error).toMatchObject({ type: 'error', error: { type: 'authentication_error' } });
    expect(denied.headers?.get('x-request-id')).toMatch(/^req_/);
  });
});

describe('GET /v1/models', () => {
  const GROUP = ['mock-gpt', 'mock-gpt-renamed', 'mock-claude', 'claude-failover'];

  it("gives the Anthropic SDK Anthropic's list shape, the same models of the key's group", async () => {
    const page = await claude.models.list();
    expect(page.data.map((m) => m.id)).toEqual(GROUP);
    expect(page.data[0]).toEqual({
      type: 'model',
      id: 'mock-gpt',
      display_name: 'mock-gpt',
      created_at: '2026-01-01T00:00:00Z',
    });
    const raw = await fetch(`${gw.edgeUrl}/v1/models`, {
      headers: { 'x-api-key': key.raw, 'anthropic-version': '2023-06-01' },
    });
    expect(await raw.json()).toMatchObject({
      has_more: false,
      first_id: 'mock-gpt',
      last_id: 'claude-failover',
    });
  });

  it("gives the OpenAI SDK OpenAI's list shape", async () => {
    const page = await openai.models.list();
    expect(page.data.map((m) => m.id)).toEqual(GROUP);
    expect(page.data[0]).toEqual({
      id: 'mock-gpt',
      object: 'model',
      created: 1767225600,
      owned_by: 'mock-provider',
    });
  });

  it("retrieves one model in either shape, and 404s unknown and other groups' models in the client's shape", async () => {
    expect(await openai.models.retrieve('mock-claude')).toMatchObject({ id: 'mock-claude', object: 'model' });
    expect(await claude.models.retrieve('mock-claude')).toMatchObject({ id: 'mock-claude', type: 'model' });
    for (const id of ['no-such-model', 'mock-secret']) {
      const a = (await openai.models.retrieve(id).catch((e: unknown) => e)) as InstanceType<
        typeof OpenAI.APIError
      >;
      expect(a).toBeInstanceOf(OpenAI.NotFoundError);
      expect(a.code).toBe('model_not_found');
      const b = (await claude.models.retrieve(id).catch((e: unknown) => e)) as InstanceType<
        typeof Anthropic.APIError
      >;
      expect(b).toBeInstanceOf(Anthropic.NotFoundError);
      expect(b.error).toMatchObject({ type: 'error', error: { type: 'not_found_error' } });
    }
  });
});

describe('the root URL', () => {
  it('answers GET / with a small JSON body naming the service, without a key', async () => {
    const res = await fetch(`${gw.edgeUrl}/`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.headers.get('x-request-id')).toMatch(/^req_/);
    expect(await res.json()).toEqual({
      service: 'model-gateway',
      openai_base_url: '/v1',
      anthropic_base_url: '/',
    });
  });

  it('answers HEAD / with 200 and no body', async () => {
    const res = await fetch(`${gw.edgeUrl}/`, { method: 'HEAD' });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-request-id')).toMatch(/^req_/);
    expect(await res.text()).toBe('');
  });
});
