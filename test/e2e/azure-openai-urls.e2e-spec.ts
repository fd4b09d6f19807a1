import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import OpenAI from 'openai';
import {
  DEFAULT_AZURE_BEHAVIOUR,
  type MockEntra,
  mockEmbedding,
  type RecordedRequest,
  startMockEntra,
  verifyEntraToken,
} from '#libs/testing';
import { FAST_TEST_SETTINGS, type Gateway, startGateway, testModel } from '../support/gateway.js';

/**
 * Azure OpenAI's two URL styles for Responses, legacy completions and embeddings, end to end with
 * the OpenAI SDK, both providers keyless with workload identity federation as AKS sets it up: a
 * projected service account token in AZURE_FEDERATED_TOKEN_FILE, with AZURE_CLIENT_ID and
 * AZURE_TENANT_ID, exchanged by @azure/identity at the (mock) tenant for Cognitive Services tokens.
 */
const API_VERSION = '2024-10-21';
/** What the kubelet projects into the pod (a JWT issued by the cluster's OIDC issuer). */
const SERVICE_ACCOUNT_TOKEN =
  'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJzeXN0ZW06c2VydmljZWFjY291bnQ6Z2F0ZXdheTpnYXRld2F5In0.c2ln';

let entra: MockEntra;
let gw: Gateway;
let openai: OpenAI;
let tokenDir: string;

beforeAll(async () => {
  entra = await startMockEntra({ federatedToken: SERVICE_ACCOUNT_TOKEN });
  tokenDir = mkdtempSync(join(tmpdir(), 'azure-identity-'));
  const tokenFile = join(tokenDir, 'azure-identity-token');
  writeFileSync(tokenFile, SERVICE_ACCOUNT_TOKEN);
  // What the workload identity webhook injects (no client secret, no key anywhere).
  const { AZURE_CLIENT_SECRET: _secret, ...authority } = entra.env();
  gw = await startGateway(
    'azure-openai-urls',
    (mockUrl) => ({
      ...FAST_TEST_SETTINGS,
      providers: [
        // v1: /openai/v1/..., the deployment named as the body's model, no api-version.
        {
          id: 'az-v1',
          type: 'azure-openai',
          base_url: mockUrl,
          models: [
            { id: 'v1-chat', upstream: 'chat-prod' },
            { id: 'v1-embed', upstream: 'embed-prod' },
          ],
        },
        // deployments: upstream model -> deployment, the api-version on every URL.
        {
          id: 'az-dep',
          type: 'azure-openai',
          base_url: mockUrl,
          api_version: API_VERSION,
          deployments: { 'gpt-4o': 'chat-prod', 'text-embedding-3-small': 'embed-prod' },
          models: [
            { id: 'dep-chat', upstream: 'gpt-4o' },
            { id: 'dep-embed', upstream: 'text-embedding-3-small' },
          ],
        },
      ],
      models: ['v1-chat', 'v1-embed', 'dep-chat', 'dep-embed'].map(testModel),
      groups: { default: ['v1-chat', 'v1-embed', 'dep-chat', 'dep-embed'] },
    }),
    {
      env: { ...authority, AZURE_FEDERATED_TOKEN_FILE: tokenFile },
      mock: { azure: { ...DEFAULT_AZURE_BEHAVIOUR, apiKey: null, entraKeys: [...entra.signingKeys] } },
    },
  );
  openai = new OpenAI({ baseURL: `${gw.edgeUrl}/v1`, apiKey: (await gw.createKey()).raw, maxRetries: 0 });
}, 60_000);

afterAll(async () => {
  await gw?.close();
  await entra?.close();
  if (tokenDir) rmSync(tokenDir, { recursive: true, force: true });
});

/** The last model request the mock received (the router's probes are GETs). */
const lastPost = (): RecordedRequest => gw.mock.requests.filter((r) => r.method === 'POST').at(-1)!;

/** The upstream request: Azure's URL, the deployment as the body's model, a verified Entra token and no key. */
async function expectSent(expected: {
  path: string;
  query: string;
  model: string;
  stream?: boolean;
}): Promise<void> {
  const sent = lastPost();
  expect([sent.path, sent.query]).toEqual([expected.path, expected.query]);
  const body = sent.body as { model?: string; stream?: boolean };
  expect(body.model).toBe(expected.model);
  expect(Boolean(body.stream)).toBe(expected.stream ?? false);
  expect(sent.headers['api-key']).toBeUndefined();
  const bearer = String(sent.headers.authorization);
  expect(await verifyEntraToken(bearer.slice('Bearer '.length), entra.signingKeys)).toMatchObject({
    ok: true,
  });
}

const STYLES = [
  {
    style: 'v1 (model in the body)',
    provider: 'az-v1',
    chat: 'v1-chat',
    embed: 'v1-embed',
    responses: { path: '/openai/v1/responses', query: '' },
    completions: { path: '/openai/v1/completions', query: '' },
    embeddings: { path: '/openai/v1/embeddings', query: '' },
  },
  {
    style: 'deployments',
    provider: 'az-dep',
    chat: 'dep-chat',
    embed: 'dep-embed',
    // Azure's Responses API is not deployment-scoped: the deployment goes as the body's model.
    responses: { path: '/openai/responses', query: `api-version=${API_VERSION}` },
    completions: { path: '/openai/deployments/chat-prod/completions', query: `api-version=${API_VERSION}` },
    embeddings: { path: '/openai/deployments/embed-prod/embeddings', query: `api-version=${API_VERSION}` },
  },
] as const;

describe.each(STYLES)('azure-openai, $style URLs, workload identity', (s) => {
  const providerOf = async (response: Response): Promise<string | null> =>
    (await gw.logRow(response.headers.get('x-request-id')!)).provider_id;

  it('serves Responses natively, stream and not', async () => {
    const ask = { model: s.chat, input: 'Hello Azure responses' };
    const { data, response } = await openai.responses.create(ask).withResponse();
    expect(data.status).toBe('completed');
    expect(data.output_text).toMatch(/mock reply to: Hello Azure responses/);
    await expectSent({ ...s.responses, model: 'chat-prod' });
    expect(await providerOf(response)).toBe(s.provider);

    const final = await openai.responses.stream(ask).finalResponse();
    expect(final.output_text).toBe(data.output_text);
    await expectSent({ ...s.responses, model: 'chat-prod', stream: true });
  });

  it('serves legacy completions natively, stream and not', async () => {
    const ask = { model: s.chat, prompt: 'Hello Azure completions', max_tokens: 60 };
    const { data, response } = await openai.completions.create(ask).withResponse();
    expect(data.choices[0]!.text).toMatch(/mock reply to: Hello Azure completions/);
    await expectSent({ ...s.completions, model: 'chat-prod' });
    expect(await providerOf(response)).toBe(s.provider);

    let text = '';
    for await (const chunk of await openai.completions.create({ ...ask, stream: true }))
      text += chunk.choices[0]?.text ?? '';
    expect(text).toBe(data.choices[0]!.text);
    await expectSent({ ...s.completions, model: 'chat-prod', stream: true });
  });

  it('serves embeddings natively', async () => {
    const { data, response } = await openai.embeddings
      .create({ model: s.embed, input: 'embed me', encoding_format: 'float', dimensions: 8 })
      .withResponse();
    const expected = Array.from(mockEmbedding('embed me', 8));
    data.data[0]!.embedding.forEach((v, i) => expect(v).toBeCloseTo(expected[i]!, 6));
    await expectSent({ ...s.embeddings, model: 'embed-prod' });
    expect(await providerOf(response)).toBe(s.provider);
  });
});

describe('workload identity federation', () => {
  it('got every token by presenting the projected service account token, and the probes use them too', async () => {
    expect(entra.issued.length).toBeGreaterThan(0);
    expect(entra.issued.every((t) => t.grant === 'client_assertion')).toBe(true);
    expect(entra.refusals).toEqual([]);
    const probes = gw.mock.requests.filter((r) => r.method === 'GET');
    expect(probes.map((p) => [p.path, p.query])).toEqual(
      expect.arrayContaining([
        ['/openai/v1/models', ''],
        ['/openai/models', `api-version=${API_VERSION}`],
      ]),
    );
    for (const probe of probes)
      expect(
        await verifyEntraToken(String(probe.headers.authorization).slice(7), entra.signingKeys),
      ).toMatchObject({
        ok: true,
      });
  });
});
