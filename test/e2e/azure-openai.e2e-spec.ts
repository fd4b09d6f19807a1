import Anthropic from '@anthropic-ai/sdk';
import { GoogleGenAI } from '@google/genai';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import OpenAI from 'openai';
import {
  DEFAULT_AZURE_BEHAVIOUR,
  DEFAULT_BEHAVIOUR,
  type MockEntra,
  mockReplyText,
  startMockEntra,
  verifyEntraToken,
} from '#libs/testing';
import { eventually, FAST_TEST_SETTINGS, type Gateway, startGateway, testModel } from '../support/gateway.js';

/**
 * Azure OpenAI end to end with the official SDKs: Microsoft Entra ID tokens from a mock tenant
 * (short-lived, so they are renewed during the test) on the v1 URLs, a second resource on the
 * deployments URLs with a key as fallback, Azure's content filter in every client shape, a
 * throttled resource failing over, and a refused credential as the provider's down reason.
 */
const TOKEN_LIFETIME_S = 8;
let entra: MockEntra;
let gw: Gateway;
let openai: OpenAI;
let anthropic: Anthropic;
let google: GoogleGenAI;

beforeAll(async () => {
  entra = await startMockEntra({ tokenLifetimeSeconds: TOKEN_LIFETIME_S });
  gw = await startGateway(
    'azure-openai',
    (mockUrl) => ({
      ...FAST_TEST_SETTINGS,
      providers: [
        // Keyless: Entra ID tokens, the v1 URLs (the body's model is the deployment name).
        {
          id: 'az-entra',
          type: 'azure-openai',
          base_url: mockUrl,
          models: [{ id: 'az', upstream: 'chat-prod' }],
        },
        // Second: the deployments URLs with a key, for failover.
        {
          id: 'az-key',
          type: 'azure-openai',
          base_url: mockUrl,
          api_key_env: 'AZURE_OPENAI_API_KEY',
          api_version: '2024-10-21',
          deployments: { az: 'chat-prod' },
          priority: 1,
          models: ['az'],
        },
      ],
      models: [testModel('az')],
      groups: { default: ['az'] },
    }),
    {
      env: { ...entra.env(), AZURE_OPENAI_API_KEY: DEFAULT_AZURE_BEHAVIOUR.apiKey! },
      mock: { azure: { ...DEFAULT_AZURE_BEHAVIOUR, entraKeys: [...entra.signingKeys] } },
    },
  );
  const key = (await gw.createKey()).raw;
  openai = new OpenAI({ baseURL: `${gw.edgeUrl}/v1`, apiKey: key, maxRetries: 0 });
  anthropic = new Anthropic({ baseURL: gw.edgeUrl, apiKey: key, maxRetries: 0 });
  google = new GoogleGenAI({ apiKey: key, httpOptions: { baseUrl: gw.edgeUrl, apiVersion: 'v1beta' } });
}, 60_000);

afterAll(async () => {
  await gw?.close();
  await entra?.close();
});

/** The last chat request the mock Azure resource received (probes of its model list interleave). */
const lastAzure = () => gw.mock.requests.filter((r) => r.path.endsWith('/chat/completions')).at(-1)!;

describe('azure-openai with Microsoft Entra ID on the v1 URLs', () => {
  it('answers chat with a verified Entra token, charged from the usage Azure reports', async () => {
    const { data, response } = await openai.chat.completions
      .create({ model: 'az', messages: [{ role: 'user', content: 'Hello Azure' }] })
      .withResponse();
    expect(data.choices[0]!.message.content).toMatch(/mock reply to: Hello Azure/);
    const sent = lastAzure();
    expect(sent.path).toBe('/openai/v1/chat/completions');
    expect((sent.body as { model: string }).model).toBe('chat-prod');
    const bearer = String(sent.headers.authorization);
    expect(await verifyEntraToken(bearer.slice(7), entra.signingKeys)).toMatchObject({ ok: true });
    expect(sent.headers['api-key']).toBeUndefined();
    const row = await gw.logRow(response.headers.get('x-request-id')!);
    expect(row.provider_id).toBe('az-entra');
    expect(Number(row.input_tokens)).toBe(data.usage!.prompt_tokens);
    expect(Number(row.cost_nanos)).toBe(
      data.usage!.prompt_tokens * 1000 + data.usage!.completion_tokens * 2000,
    );
  });

  it('streams chat natively past the prompt filter chunk, and Messages and Gemini clients by translation', async () => {
    let text = '';
    for await (const chunk of await openai.chat.completions.create({
      model: 'az',
      stream: true,
      messages: [{ role: 'user', content: 'Stream Azure' }],
    }))
      text += chunk.choices[0]?.delta.content ?? '';
    expect(text).toMatch(/mock reply to: Stream Azure/);
    const msg = await anthropic.messages.create({
      model: 'az',
      max_tokens: 100,
      messages: [{ role: 'user', content: 'Messages via Azure' }],
    });
    expect(msg.content[0]).toMatchObject({ type: 'text' });
    let streamed = '';
    for await (const event of anthropic.messages.stream({
      model: 'az',
      max_tokens: 100,
      messages: [{ role: 'user', content: 'Streamed messages via Azure' }],
    }))
      if (event.type === 'content_block_delta' && event.delta.type === 'text_delta')
        streamed += event.delta.text;
    expect(streamed).toMatch(/Streamed messages via Azure/);
    const gem = await google.models.generateContent({ model: 'az', contents: 'Gemini via Azure' });
    expect(gem.text).toMatch(/Gemini via Azure/);
  });

  it('renews the token on its own schedule ahead of expiry, so no request waits on it or gets a 401', async () => {
    const tokenOf = (r: { headers: { authorization?: string } }) => r.headers.authorization?.slice(7);
    const issuedIndex = (token: string | undefined) => entra.issued.findIndex((t) => t.token === token);
    const chats = () => gw.mock.requests.filter((r) => r.path.endsWith('/chat/completions'));
    const tick = () =>
      openai.chat.completions.create({ model: 'az', messages: [{ role: 'user', content: 'tick' }] });

    // Under traffic: requests until the edge has moved to a new token (a generous bound, for a
    // loaded machine, not a target), every one answered by the keyless provider with a token Azure
    // accepted: a 401 (an expired token) would have failed over to the key on the deployments URLs.
    const before = chats().length;
    const edgeTokens = await eventually(
      async () => {
        await tick();
        await new Promise((r) => setTimeout(r, 250));
        const used = new Set(chats().slice(before).map(tokenOf));
        return used.size > 1 ? [...used] : undefined;
      },
      TOKEN_LIFETIME_S * 1000 * 3,
      'a renewed token in use',
    );
    const served = chats().slice(before);
    for (const r of served) expect(r.path).toBe('/openai/v1/chat/completions');
    for (const t of edgeTokens) expect(issuedIndex(t)).toBeGreaterThanOrEqual(0);
    for (const t of entra.issued) expect(t.expiresAtMs - t.issuedAtMs).toBe(TOKEN_LIFETIME_S * 1000);

    // Idle: no request for the whole life of the edge's last token. Renewing on demand, the edge
    // would get its next token only for the next request; renewing on a schedule, it already
    // holds one, got while nothing asked. The router's probes take tokens of their own, told
    // apart by their use: a token none of three probes since it was issued carries is the edge's.
    const last = entra.issued[issuedIndex(edgeTokens.at(-1))]!;
    const idleFrom = entra.issued.length;
    const probes = () => gw.mock.requests.filter((r) => r.path === '/openai/v1/models');
    const probesSeen = new Map<number, number>(); // issued index -> probes received when first seen
    await eventually(
      async () => {
        for (let i = idleFrom; i < entra.issued.length; i++)
          if (!probesSeen.has(i)) probesSeen.set(i, probes().length);
        const edgeRenewed = [...probesSeen].some(([i, seen]) => {
          const since = probes().slice(seen);
          return since.length >= 3 && since.every((p) => tokenOf(p) !== entra.issued[i]!.token);
        });
        return edgeRenewed && Date.now() > last.expiresAtMs ? true : undefined;
      },
      TOKEN_LIFETIME_S * 1000 * 3,
      "the edge's last token expired and a new one got while idle",
    );
    const issuedBeforeSend = entra.issued.length;
    await tick();
    const after = chats().at(-1)!;
    expect(after.path).toBe('/openai/v1/chat/completions');
    // The request went out with a token issued while idle, before it was sent: it waited on nothing.
    expect(issuedIndex(tokenOf(after))).toBeGreaterThanOrEqual(idleFrom);
    expect(issuedIndex(tokenOf(after))).toBeLessThan(issuedBeforeSend);
  }, 60_000);
});

describe("Azure's content filter", () => {
  const FILTERED = 'Tell me [content-filter:violence] now';

  it('is a 400 content_filter naming the category for OpenAI clients, not a failover', async () => {
    // Generation calls only: the router's probes (every 200 ms) land on the same mock.
    const calls = () => gw.mock.requests.filter((r) => r.method === 'POST').length;
    const before = calls();
    const err = await openai.chat.completions
      .create({ model: 'az', messages: [{ role: 'user', content: FILTERED }] })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.BadRequestError);
    expect((err as InstanceType<typeof OpenAI.BadRequestError>).code).toBe('content_filter');
    expect((err as Error).message).toMatch(/category: violence/);
    // One upstream call: the refusal is the client's, no other provider is tried.
    expect(calls() - before).toBe(1);
  });

  it('is an invalid_request_error for Anthropic clients and INVALID_ARGUMENT for Gemini clients', async () => {
    const err = await anthropic.messages
      .create({ model: 'az', max_tokens: 50, messages: [{ role: 'user', content: FILTERED }] })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Anthropic.BadRequestError);
    expect((err as InstanceType<typeof Anthropic.BadRequestError>).error).toMatchObject({
      error: { type: 'invalid_request_error', message: expect.stringMatching(/category: violence/) },
    });
    const res = await fetch(`${gw.edgeUrl}/v1beta/models/az:generateContent`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-goog-api-key': openai.apiKey! },
      body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text: FILTERED }] }] }),
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({
      error: { code: 400, status: 'INVALID_ARGUMENT', message: expect.stringMatching(/category: violence/) },
    });
  });
});

describe("Azure's content filter on a completion", () => {
  /** The mock passes this prompt and cuts its completion for violence, as Azure's filter does. */
  const CUT = 'Tell a story [content-filter-completion:violence]';
  const filteredViolence = { filtered: true, severity: 'high' };

  it('reaches OpenAI clients natively: finish_reason content_filter with the verdicts, the text that passed, charged', async () => {
    // The mock's whole reply to the prompt, which the filter cuts in half.
    const full = mockReplyText(CUT, null, DEFAULT_BEHAVIOUR.chunkCount);
    const { data, response } = await openai.chat.completions
      .create({ model: 'az', messages: [{ role: 'user', content: CUT }] })
      .withResponse();
    const choice = data.choices[0]! as (typeof data.choices)[0] & { content_filter_results: unknown };
    expect(choice.finish_reason).toBe('content_filter');
    expect(choice.content_filter_results).toMatchObject({ violence: filteredViolence });
    expect(full.startsWith(choice.message.content!)).toBe(true);
    expect(choice.message.content!.length).toBeLessThan(full.length);
    const row = await gw.logRow(response.headers.get('x-request-id')!);
    expect(row).toMatchObject({ status: 200, error_code: null, provider_id: 'az-entra' });
    expect(Number(row.cost_nanos)).toBeGreaterThan(0);

    let finish: string | null = null;
    let text = '';
    for await (const chunk of await openai.chat.completions.create({
      model: 'az',
      stream: true,
      messages: [{ role: 'user', content: CUT }],
    })) {
      text += chunk.choices[0]?.delta.content ?? '';
      finish = chunk.choices[0]?.finish_reason ?? finish;
      if (chunk.choices[0]?.finish_reason)
        expect(chunk.choices[0]).toMatchObject({ content_filter_results: { violence: filteredViolence } });
    }
    expect(finish).toBe('content_filter');
    expect(text.length).toBeGreaterThan(0);
    expect(full.startsWith(text)).toBe(true);

    const completion = await openai.completions.create({ model: 'az', prompt: CUT, max_tokens: 50 });
    expect(completion.choices[0]!.finish_reason).toBe('content_filter');
  });

  it('is stop_reason refusal for Anthropic clients, stream and not', async () => {
    const ask = { model: 'az', max_tokens: 100, messages: [{ role: 'user' as const, content: CUT }] };
    const msg = await anthropic.messages.create(ask);
    expect(msg.stop_reason).toBe('refusal');
    const streamed = await anthropic.messages.stream(ask).finalMessage();
    expect(streamed.stop_reason).toBe('refusal');
    expect(streamed.usage.output_tokens).toBeGreaterThan(0);
  });

  it('is finishReason SAFETY for Gemini clients, stream and not', async () => {
    const res = await google.models.generateContent({ model: 'az', contents: CUT });
    expect(res.candidates![0]!.finishReason).toBe('SAFETY');
    const finishes: string[] = [];
    for await (const chunk of await google.models.generateContentStream({ model: 'az', contents: CUT }))
      for (const c of chunk.candidates ?? []) if (c.finishReason) finishes.push(c.finishReason);
    expect(finishes).toEqual(['SAFETY']);
  });
});

describe('faults', () => {
  it('fails over to the next provider when Azure throttles (429)', async () => {
    gw.mock.setBehaviour({ failureRate: 1, failStatus: 429, failurePath: '/openai/v1/chat/completions' });
    try {
      const { response } = await openai.chat.completions
        .create({ model: 'az', messages: [{ role: 'user', content: 'throttled' }] })
        .withResponse();
      const row = await gw.logRow(response.headers.get('x-request-id')!);
      expect(row.provider_id).toBe('az-key');
      expect(lastAzure().path).toBe('/openai/deployments/chat-prod/chat/completions');
      expect(lastAzure().query).toBe('api-version=2024-10-21');
    } finally {
      gw.mock.setBehaviour({ failureRate: 0, failurePath: null });
    }
  });

  it('marks the keyless provider down with the identity platform reason once its token is refused and expired', async () => {
    entra.refuseAll(true);
    try {
      const reason = await eventually(
        async () => {
          const body = (await (await fetch(`${gw.routerUrl}/routes`)).json()) as {
            models: Record<string, Array<{ providerId: string; state: string; reason: string }>>;
          };
          const c = body.models.az?.find((x) => x.providerId === 'az-entra');
          // The throttling test above may leave a rate-limit verdict for a moment: wait for this one.
          return c?.state === 'down' && c.reason.startsWith('credentials') ? c.reason : undefined;
        },
        TOKEN_LIFETIME_S * 1000 * 2,
        'az-entra down',
      );
      expect(reason).toMatch(/^credentials: invalid_client: AADSTS7000215/);
      // Clients are still served, by the provider with a key.
      const { response } = await openai.chat.completions
        .create({ model: 'az', messages: [{ role: 'user', content: 'still served' }] })
        .withResponse();
      expect((await gw.logRow(response.headers.get('x-request-id')!)).provider_id).toBe('az-key');
    } finally {
      entra.refuseAll(false);
    }
  }, 30_000);
});
