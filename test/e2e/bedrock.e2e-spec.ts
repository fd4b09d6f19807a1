import { readdirSync, readFileSync } from 'node:fs';
import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import OpenAI from 'openai';
import { MOCK_AWS_CREDENTIAL, MOCK_BEDROCK_API_KEY, type MockBedrock, startMockBedrock } from '#libs/testing';
import { bedrock as bedrockFormat } from '#libs/providers';
import { eventually, FAST_TEST_SETTINGS, type Gateway, startGateway } from '../support/gateway.js';

/**
 * Bedrock end to end with the official SDKs as clients, what is Bedrock's own: a provider signing
 * with SigV4 (keys from the environment, the signature's scope checked), Claude's Messages body
 * natively through InvokeModel with its cache and thinking, Bedrock's exceptions in the client's
 * shape; a second provider with a Bedrock API key (bearer) to fail over to when the first is
 * throttled; a third whose secret is wrong, down with AWS's reason; the recorded agent requests.
 * Every client format, stream and not, against Claude (InvokeModel) and a Converse model is the
 * conformance matrix's (test/e2e/conformance-*.e2e-spec.ts, rows `bedrock-claude` and
 * `bedrock-converse`).
 */
const REGION = 'eu-central-1';
const CLAUDE = 'global.anthropic.claude-sonnet-4-5-20250929-v1:0';
/** Credits per million tokens: input 3, output 15, cache reads 0.3, cache writes 3.75 (Claude's ratios). */
const PRICES = {
  input_per_million: 3,
  output_per_million: 15,
  cache_read_per_million: 0.3,
  cache_write_5m_per_million: 3.75,
};
let bedrock: MockBedrock;
/** A second endpoint whose account does not know the gateway's key: every signature refused. */
let foreign: MockBedrock;
let gw: Gateway;
let openai: OpenAI;
let anthropic: Anthropic;

beforeAll(async () => {
  bedrock = await startMockBedrock({ region: REGION, cacheReadTokens: 2, cacheWriteTokens: 3 });
  foreign = await startMockBedrock({
    region: REGION,
    credentials: [{ accessKeyId: MOCK_AWS_CREDENTIAL.accessKeyId, secretAccessKey: 'another-secret' }],
  });
  gw = await startGateway(
    'bedrock',
    () => ({
      ...FAST_TEST_SETTINGS,
      providers: [
        // Signed with the keys in the environment, at the mock's endpoint (a VPC endpoint's place).
        {
          id: 'br-sigv4',
          type: 'bedrock',
          region: REGION,
          base_url: bedrock.url,
          models: [{ id: 'claude', upstream: CLAUDE }],
        },
        // A Bedrock API key, for failover.
        {
          id: 'br-key',
          type: 'bedrock',
          region: REGION,
          base_url: bedrock.url,
          api_key_env: 'AWS_BEARER_TOKEN_BEDROCK',
          priority: 1,
          models: [{ id: 'claude', upstream: CLAUDE }],
        },
        {
          id: 'br-refused',
          type: 'bedrock',
          region: REGION,
          base_url: foreign.url,
          priority: 2,
          models: [
            { id: 'claude', upstream: CLAUDE },
            { id: 'refused-only', upstream: CLAUDE },
          ],
        },
      ],
      models: [
        { id: 'claude', owned_by: 'anthropic', created: 1767225600, pricing: PRICES },
        { id: 'refused-only', owned_by: 'anthropic', created: 1767225600, pricing: PRICES },
      ],
      groups: { default: ['claude', 'refused-only'] },
    }),
    {
      env: {
        AWS_ACCESS_KEY_ID: MOCK_AWS_CREDENTIAL.accessKeyId,
        AWS_SECRET_ACCESS_KEY: MOCK_AWS_CREDENTIAL.secretAccessKey,
        AWS_BEARER_TOKEN_BEDROCK: MOCK_BEDROCK_API_KEY,
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

const modelCalls = () => bedrock.requests.filter((r) => r.path.startsWith('/model/'));
const cost = (u: { input: number; cacheRead: number; cacheWrite: number; output: number }): number =>
  u.input * 3000 + u.cacheRead * 300 + u.cacheWrite * 3750 + u.output * 15000;

describe('bedrock: OpenAI-format clients through Converse', () => {
  it('answers chat signed with SigV4, charged from the usage Converse reports', async () => {
    const { data, response } = await openai.chat.completions
      .create({
        model: 'claude',
        messages: [
          { role: 'system', content: 'Be brief.' },
          { role: 'user', content: 'Hello Bedrock' },
        ],
      })
      .withResponse();
    expect(data.choices[0]!.message.content).toMatch(/mock reply to: Hello Bedrock/);
    const sent = modelCalls().at(-1)!;
    expect(sent.path).toBe(`/model/${encodeURIComponent(CLAUDE)}/converse`);
    expect(String(sent.headers.authorization)).toMatch(
      new RegExp(
        `^AWS4-HMAC-SHA256 Credential=${MOCK_AWS_CREDENTIAL.accessKeyId}/\\d{8}/${REGION}/bedrock/aws4_request`,
      ),
    );
    const row = await gw.logRow(response.headers.get('x-request-id')!);
    expect(row.provider_id).toBe('br-sigv4');
    expect(Number(row.input_tokens)).toBe(data.usage!.prompt_tokens);
    const cached = data.usage!.prompt_tokens_details?.cached_tokens ?? 0;
    expect(Number(row.cost_nanos)).toBe(
      cost({
        input: data.usage!.prompt_tokens - cached,
        cacheRead: cached,
        cacheWrite: 0,
        output: data.usage!.completion_tokens,
      }),
    );
  });
});

describe('bedrock: Messages clients natively through InvokeModel', () => {
  it('passes cache_control and thinking through to Claude, the model in the path, charged with its cache reads and writes', async () => {
    const { data: msg, response } = await anthropic.messages
      .create({
        model: 'claude',
        max_tokens: 2048,
        thinking: { type: 'enabled', budget_tokens: 1024 },
        system: [{ type: 'text', text: 'Be brief.', cache_control: { type: 'ephemeral' } }],
        messages: [{ role: 'user', content: 'Messages via Bedrock' }],
      })
      .withResponse();
    expect(msg.content.map((b) => b.type)).toEqual(['thinking', 'text']);
    // Charged from Bedrock's usage: uncached input, the cache's reads and writes, output, each at its price.
    const u = msg.usage;
    expect(u.cache_read_input_tokens).toBe(2);
    expect(u.cache_creation_input_tokens).toBe(3);
    const row = await gw.logRow(response.headers.get('request-id') ?? response.headers.get('x-request-id')!);
    expect(row.provider_id).toBe('br-sigv4');
    expect(Number(row.cost_nanos)).toBe(
      cost({ input: u.input_tokens, cacheRead: 2, cacheWrite: 3, output: u.output_tokens }),
    );
    const sent = modelCalls().at(-1)!;
    expect(sent.path).toBe(`/model/${encodeURIComponent(CLAUDE)}/invoke`);
    expect(sent.body).toMatchObject({
      anthropic_version: 'bedrock-2023-05-31',
      system: [{ type: 'text', text: 'Be brief.', cache_control: { type: 'ephemeral' } }],
      thinking: { type: 'enabled', budget_tokens: 1024 },
    });
    expect(sent.body).not.toHaveProperty('model');
  });

  it("renders Bedrock's ValidationException as Anthropic's invalid_request_error, not a failover", async () => {
    const before = modelCalls().length;
    const err = await anthropic.messages
      .create({
        model: 'claude',
        max_tokens: 100,
        messages: [
          { role: 'user', content: [{ type: 'text', text: 'hi', bogus: true } as Anthropic.TextBlockParam] },
        ],
      })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Anthropic.BadRequestError);
    expect((err as InstanceType<typeof Anthropic.BadRequestError>).error).toMatchObject({
      type: 'error',
      error: {
        type: 'invalid_request_error',
        message: 'messages.0.content.0.text.bogus: Extra inputs are not permitted',
      },
    });
    expect(modelCalls().length - before).toBe(1);
  });
});

describe('bedrock: failures', () => {
  it('fails over to the next provider when Bedrock throttles', async () => {
    bedrock.throttleNext(1);
    const { response } = await openai.chat.completions
      .create({ model: 'claude', messages: [{ role: 'user', content: 'throttled' }] })
      .withResponse();
    const row = await gw.logRow(response.headers.get('x-request-id')!);
    expect(row.provider_id).toBe('br-key');
    expect(String(modelCalls().at(-1)!.headers.authorization)).toBe(`Bearer ${MOCK_BEDROCK_API_KEY}`);
  });

  it("marks a provider whose signature Bedrock refuses down with AWS's reason, never a 500 to the client", async () => {
    const state = await eventually(
      async () => {
        const body = (await (await fetch(`${gw.routerUrl}/routes`)).json()) as {
          models: Record<string, Array<{ providerId: string; state: string; reason: string }>>;
        };
        const c = body.models.claude?.find((p) => p.providerId === 'br-refused');
        return c?.state === 'down' ? c : undefined;
      },
      10_000,
      'br-refused down',
    );
    // AWS's own words, as its exception header and body give them, bounded.
    expect(state.reason).toMatch(
      /^probe: HTTP 403 InvalidSignatureException: The request signature we calculated does not match the signature you provided\./,
    );
    expect(state.reason.length).toBeLessThanOrEqual('probe: HTTP 403 '.length + 200);
    // A request to it is the gateway's 5xx naming the credentials, never a 500 or AWS's 403.
    const err = await openai.chat.completions
      .create({ model: 'refused-only', messages: [{ role: 'user', content: 'hi' }] })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.APIError);
    expect((err as InstanceType<typeof OpenAI.APIError>).status).not.toBe(500);
    expect([502, 503]).toContain((err as InstanceType<typeof OpenAI.APIError>).status);
    expect(foreign.requests.length).toBeGreaterThan(0);
    expect(
      foreign.requests.every((r) => String(r.headers.authorization).startsWith('AWS4-HMAC-SHA256 ')),
    ).toBe(true);
  });
});

/** The recorded agent requests, as the agents sent them (their model replaced by the gateway's). */
const AGENTS_DIR = new URL('../fixtures/agents/', import.meta.url);
const BEDROCK_BETAS = bedrockFormat.BEDROCK_BETAS;
const AGENTS = readdirSync(AGENTS_DIR)
  .filter((f) => f.endsWith('.json') && !f.includes('count-tokens'))
  .map((f) => {
    const fx = JSON.parse(readFileSync(new URL(f, AGENTS_DIR), 'utf8')) as {
      path: string;
      headers: Record<string, string>;
      body: Record<string, unknown>;
    };
    return [f, fx] as const;
  });
/** Gemini CLI's routing classifier asks for JSON by schema, which Converse cannot express. */
const REFUSED = new Set(['gemini-cli.routing.1.json']);
/** How each format's stream says it completed. */
const COMPLETE: readonly [RegExp, RegExp][] = [
  [/^\/v1\/messages/, /event: message_stop/],
  [/^\/v1\/responses/, /event: response\.completed/],
  [/^\/v1\/chat\/completions/, /data: \[DONE\]/],
  [/^\/v1beta\//, /"finishReason"/],
];

describe('bedrock: the recorded agent requests replayed', () => {
  it('cover Claude Code, Codex and Gemini CLI', () => {
    for (const agent of ['claude-code.', 'codex.', 'gemini-cli.'])
      expect(AGENTS.some(([name]) => name.startsWith(agent))).toBe(true);
  });

  it.each(AGENTS)('%s: Messages natively through InvokeModel, the others through Converse', async (_, fx) => {
    const gemini = fx.path.startsWith('/v1beta/');
    const path = gemini ? fx.path.replace(/models\/[^:]+:/, 'models/claude:') : fx.path;
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    for (const [k, v] of Object.entries(fx.headers))
      if (/^(anthropic-|x-stainless|user-agent|openai-|x-goog-api-client)/i.test(k)) headers[k] = v;
    const apiKey = String(openai.apiKey);
    if (gemini) headers['x-goog-api-key'] = apiKey;
    else if (fx.path.startsWith('/v1/messages')) headers['x-api-key'] = apiKey;
    else headers.authorization = `Bearer ${apiKey}`;
    const before = modelCalls().length;
    const res = await fetch(gw.edgeUrl + path, {
      method: 'POST',
      headers,
      body: JSON.stringify(gemini ? fx.body : { ...fx.body, model: 'claude' }),
    });
    const text = await res.text();
    if (REFUSED.has(_)) {
      // Structured output has no Converse field: the gateway's own 400 naming it, not Bedrock's.
      expect([res.status, modelCalls().length]).toEqual([400, before]);
      expect(text).toMatch(/response_format/);
      return;
    }
    expect([res.status, text.slice(0, 300)]).toEqual([200, text.slice(0, 300)]);
    const sent = modelCalls().at(-1)!;
    expect(modelCalls().length).toBeGreaterThan(before);
    const native = fx.path.startsWith('/v1/messages');
    const streamed = fx.body.stream === true || fx.path.includes('streamGenerateContent');
    const op = native
      ? streamed
        ? 'invoke-with-response-stream'
        : 'invoke'
      : streamed
        ? 'converse-stream'
        : 'converse';
    expect(sent.path).toBe(`/model/${encodeURIComponent(CLAUDE)}/${op}`);
    if (streamed) expect(text).toMatch(COMPLETE.find(([p]) => p.test(fx.path))![1]);
    // Claude Code's beta flags reach Bedrock in the body, less those Bedrock refuses (the mock checks).
    if (native) {
      const carried = (fx.headers['anthropic-beta'] ?? '')
        .split(',')
        .filter((f) => BEDROCK_BETAS.has(f.trim()));
      const sentBetas = (sent.body as { anthropic_beta?: string[] }).anthropic_beta;
      expect(sentBetas ?? []).toEqual(carried);
    }
  });
});
