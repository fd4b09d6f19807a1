import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import OpenAI from 'openai';
import {
  MOCK_AWS_CREDENTIAL,
  MOCK_AWS_PRINCIPAL,
  MOCK_BEDROCK_API_KEY,
  type MockBedrock,
  startMockBedrock,
} from '#libs/testing';
import { eventually, FAST_TEST_SETTINGS, type Gateway, startGateway, testModel } from '../support/gateway.js';

/**
 * A cloud that refuses the gateway's own credentials on a live request (issue 21): the request
 * fails over like a 5xx, the refused attempt is on the log row with the vendor's words, and the
 * router marks the provider down with them for every edge. Bedrock refuses by its IAM policy
 * (AccessDeniedException) or its signature check (a wrong secret), Azure OpenAI a wrong api-key.
 *
 * The router probes once, at start, and not again during these tests (a long interval): every
 * down state seen here comes from a live request, not from a probe.
 */
const REGION = 'eu-central-1';
const CLAUDE = 'anthropic.claude-sonnet-4-5-20250929-v1:0';
const NOVA = 'amazon.nova-pro-v1:0';
let bedrock: MockBedrock;
/** An endpoint of an account whose secret for the gateway's key ID differs: every signature refused. */
let foreign: MockBedrock;
let gw: Gateway;
let openai: OpenAI;
let anthropic: Anthropic;

beforeAll(async () => {
  bedrock = await startMockBedrock({ region: REGION });
  foreign = await startMockBedrock({
    region: REGION,
    credentials: [{ accessKeyId: MOCK_AWS_CREDENTIAL.accessKeyId, secretAccessKey: 'another-secret' }],
  });
  gw = await startGateway(
    'credential-refusal',
    (mockUrl) => ({
      ...FAST_TEST_SETTINGS,
      router: { ...FAST_TEST_SETTINGS.router, probe_interval_ms: 600_000 },
      providers: [
        {
          id: 'br-denied',
          type: 'bedrock',
          region: REGION,
          base_url: bedrock.url,
          control_plane_url: bedrock.controlUrl,
          models: [
            { id: 'claude', upstream: CLAUDE },
            { id: 'denied-only', upstream: CLAUDE },
          ],
        },
        {
          id: 'br-key',
          type: 'bedrock',
          region: REGION,
          base_url: bedrock.url,
          control_plane_url: bedrock.controlUrl,
          api_key_env: 'AWS_BEARER_TOKEN_BEDROCK',
          models: [{ id: 'keyed', upstream: NOVA }],
        },
        {
          id: 'br-bad-secret',
          type: 'bedrock',
          region: REGION,
          base_url: foreign.url,
          control_plane_url: foreign.controlUrl,
          models: [{ id: 'nova', upstream: NOVA }],
        },
        {
          id: 'az-bad-key',
          type: 'azure-openai',
          base_url: mockUrl,
          api_key_env: 'AZURE_OPENAI_API_KEY',
          models: [
            { id: 'gpt', upstream: 'chat-prod' },
            { id: 'az-only', upstream: 'chat-prod' },
          ],
        },
        {
          id: 'fallback',
          type: 'openai',
          base_url: `${mockUrl}/v1`,
          priority: 1,
          models: [
            { id: 'claude', upstream: 'mock-gpt' },
            { id: 'nova', upstream: 'mock-gpt' },
            { id: 'gpt', upstream: 'mock-gpt' },
          ],
        },
      ],
      models: ['claude', 'denied-only', 'keyed', 'nova', 'gpt', 'az-only'].map(testModel),
      groups: { default: ['claude', 'denied-only', 'keyed', 'nova', 'gpt', 'az-only'] },
    }),
    {
      env: {
        AWS_ACCESS_KEY_ID: MOCK_AWS_CREDENTIAL.accessKeyId,
        AWS_SECRET_ACCESS_KEY: MOCK_AWS_CREDENTIAL.secretAccessKey,
        AWS_BEARER_TOKEN_BEDROCK: MOCK_BEDROCK_API_KEY,
        AZURE_OPENAI_API_KEY: 'not-the-resource-key',
      },
    },
  );
  const key = (await gw.createKey()).raw;
  openai = new OpenAI({ baseURL: `${gw.edgeUrl}/v1`, apiKey: key, maxRetries: 0 });
  anthropic = new Anthropic({ baseURL: gw.edgeUrl, apiKey: key, maxRetries: 0 });
}, 60_000);

afterAll(async () => {
  await gw?.close();
  await bedrock?.close();
  await foreign?.close();
});

interface Candidate {
  readonly providerId: string;
  readonly state: string;
  readonly reason: string;
}

async function candidate(model: string, providerId: string): Promise<Candidate | undefined> {
  const body = (await (await fetch(`${gw.routerUrl}/routes`)).json()) as {
    models: Record<string, Candidate[]>;
  };
  return body.models[model]?.find((c) => c.providerId === providerId);
}

/** Waits for the provider to be down for `model` in GET /routes; how long that took after `since`. */
async function downInRoutes(model: string, providerId: string, since: number): Promise<[Candidate, number]> {
  const down = await eventually(
    async () => {
      const c = await candidate(model, providerId);
      return c?.state === 'down' ? c : undefined;
    },
    5_000,
    `${providerId} down for ${model}`,
  );
  return [down, Date.now() - since];
}

const attemptsOf = async (requestId: string | null) => (await gw.logRow(requestId!)).attempts;

describe("the router's probe of a bedrock provider", () => {
  it('lists foundation models on the control plane, signed for bedrock in the region, or with the API key', async () => {
    await eventually(async () => ((await candidate('claude', 'br-denied'))?.reason ? true : undefined));
    const listings = bedrock.controlRequests.filter(
      (r) => r.method === 'GET' && r.path === '/foundation-models',
    );
    const auth = listings.map((r) => String(r.headers.authorization));
    expect(auth).toContainEqual(
      expect.stringMatching(
        new RegExp(
          `^AWS4-HMAC-SHA256 Credential=${MOCK_AWS_CREDENTIAL.accessKeyId}/\\d{8}/${REGION}/bedrock/aws4_request, SignedHeaders=`,
        ),
      ),
    );
    expect(auth).toContain(`Bearer ${MOCK_BEDROCK_API_KEY}`);
    // The mock checked both and listed: both providers are up on the probe's word.
    expect(await candidate('claude', 'br-denied')).toMatchObject({ state: 'up', reason: 'probe: HTTP 200' });
    expect(await candidate('keyed', 'br-key')).toMatchObject({ state: 'up', reason: 'probe: HTTP 200' });
    // Nothing probed Bedrock Runtime, which has no model list.
    expect(bedrock.requests.filter((r) => r.method === 'GET')).toEqual([]);
  });
});

describe('a refused credential on a live request fails over and takes the provider down', () => {
  it('Bedrock AccessDeniedException: served by the next provider, logged and down with IAM’s words', async () => {
    bedrock.deny(['bedrock:InvokeModel']);
    const { data, response } = await openai.chat.completions
      .create({ model: 'claude', messages: [{ role: 'user', content: 'denied first' }] })
      .withResponse();
    const answeredAt = Date.now();
    expect(data.choices[0]!.message.content).toMatch(/denied first/);
    const words = `AccessDeniedException: User: ${MOCK_AWS_PRINCIPAL} is not authorized to perform: bedrock:InvokeModel on resource: arn:aws:bedrock:${REGION}::foundation-model/${CLAUDE}`;
    const attempts = await attemptsOf(response.headers.get('x-request-id'));
    expect(attempts.map((a) => [a.providerId, a.status, a.outcome])).toEqual([
      ['br-denied', 403, 'http_error'],
      ['fallback', 200, 'ok'],
    ]);
    expect(attempts[0]!.reason).toBe(
      `credentials refused: ${words}`.slice(0, 'credentials refused: '.length + 199) + '…',
    );
    expect(attempts[1]!.reason).toBeUndefined();

    const [down, afterMs] = await downInRoutes('claude', 'br-denied', answeredAt);
    expect(down.reason.startsWith(`request: HTTP 403 ${words.slice(0, 150)}`)).toBe(true);
    // Every model of the provider, not only the one asked for.
    expect(await candidate('denied-only', 'br-denied')).toMatchObject({ state: 'down', reason: down.reason });
    console.info(`br-denied down in GET /routes ${afterMs} ms after the answer`);
  });

  it('Bedrock InvalidSignatureException (a wrong secret), stream: served by the next provider, down with AWS’s words', async () => {
    const stream = await openai.chat.completions.create({
      model: 'nova',
      stream: true,
      messages: [{ role: 'user', content: 'signed wrong' }],
    });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
    const answeredAt = Date.now();
    expect(text).toMatch(/signed wrong/);
    const [down] = await downInRoutes('nova', 'br-bad-secret', answeredAt);
    expect(down.reason).toMatch(
      /^request: HTTP 403 InvalidSignatureException: The request signature we calculated does not match the signature you provided\./,
    );
    const signed = foreign.requests.filter((r) => r.path.startsWith('/model/'));
    expect(signed.length).toBe(1);
    expect(String(signed[0]!.headers.authorization)).toMatch(/^AWS4-HMAC-SHA256 /);
  });

  it("Azure OpenAI with a wrong api-key: served by the next provider, down with Azure's own message", async () => {
    const { response } = await anthropic.messages
      .create({ model: 'gpt', max_tokens: 32, messages: [{ role: 'user', content: 'wrong key' }] })
      .withResponse();
    const answeredAt = Date.now();
    const message =
      'Access denied due to invalid subscription key or wrong API endpoint. Make sure to provide a valid key for an active subscription and use a correct regional API endpoint for your resource.';
    const attempts = await attemptsOf(response.headers.get('x-request-id'));
    expect(attempts.map((a) => [a.providerId, a.status, a.reason])).toEqual([
      ['az-bad-key', 401, `credentials refused: ${message}`],
      ['fallback', 200, undefined],
    ]);
    const [down] = await downInRoutes('gpt', 'az-bad-key', answeredAt);
    expect(down.reason).toBe(`request: HTTP 401 ${message}`);
  });
});

describe('the only provider refuses: the gateway’s 502 in the client’s format, never the upstream 401/403', () => {
  it('OpenAI SDK, stream and not: 502 api_error upstream_error naming the credentials', async () => {
    for (const [model, stream] of [
      ['denied-only', false],
      ['az-only', true],
    ] as const) {
      const err = await openai.chat.completions
        .create({ model, stream, messages: [{ role: 'user', content: 'only one' }] })
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(OpenAI.APIError);
      const api = err as InstanceType<typeof OpenAI.APIError>;
      expect([api.status, api.type, api.code]).toEqual([502, 'api_error', 'upstream_error']);
      expect(api.message).toMatch(/rejected the gateway credentials/);
      const row = await gw.logRow(api.requestID!);
      expect(row.status).toBe(502);
      expect(row.attempts.map((a) => a.reason?.slice(0, 20))).toEqual(['credentials refused:']);
    }
  });

  it('Anthropic SDK, Bedrock natively (InvokeModel) and Azure translated: 502 api_error in shape B', async () => {
    for (const model of ['denied-only', 'az-only']) {
      const err = await anthropic.messages
        .create({ model, max_tokens: 16, messages: [{ role: 'user', content: 'only one' }] })
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(Anthropic.InternalServerError);
      const api = err as InstanceType<typeof Anthropic.APIError>;
      expect(api.status).toBe(502);
      expect(api.error).toMatchObject({
        type: 'error',
        error: {
          type: 'api_error',
          message: 'The provider rejected the gateway credentials for this model.',
        },
      });
    }
  });
});
