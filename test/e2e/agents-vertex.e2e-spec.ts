import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import OpenAI from 'openai';
import { DEFAULT_VERTEX_BEHAVIOUR, type MockGoogle, startMockGoogle } from '#libs/testing';
import { FAST_TEST_SETTINGS, type Gateway, startGateway, testModel } from '../support/gateway.js';
import {
  assertGeminiUsable,
  type GeminiAnswer,
  isGemini,
  methodOf,
  replayGemini,
  signedByMock,
} from './agents-gemini.js';

/**
 * The requests real coding agents sent (test/fixtures/agents) replayed through a `vertex`
 * provider in the `global` location, keyless with a service-account key whose token_uri is a mock
 * Google: Claude Code's (and opencode's Messages) turns natively on Claude's streamRawPredict,
 * Codex's and opencode's chat translated to Claude and Codex's to Gemini too, Gemini CLI's
 * natively on Gemini. Each answer is read with the official SDK of the agent's format; the
 * upstream request is checked by the strict mock and here.
 */
interface AgentRequest {
  readonly file: string;
  readonly path: string;
  readonly headers: Record<string, string>;
  readonly body: Record<string, unknown>;
}

const DIR = 'test/fixtures/agents';
const fixtures: AgentRequest[] = readdirSync(DIR)
  .filter((f) => f.endsWith('.json'))
  .sort()
  .map((file) => ({
    file,
    ...(JSON.parse(readFileSync(`${DIR}/${file}`, 'utf8')) as Omit<AgentRequest, 'file'>),
  }));

const CLAUDE = 'claude-sonnet-4@20250514';
const GEMINI = 'gemini-3-flash-preview';
const PREFIX = '/v1/projects/mock-project/locations/global/publishers';
const MODELS = { claude: 'agent-vertex-claude', gemini: 'agent-vertex-gemini' } as const;

/** Every recorded request, with the Vertex model it goes to (Codex's to both). */
const CASES: [string, keyof typeof MODELS, AgentRequest][] = fixtures.flatMap((fx) => {
  if (isGemini(fx)) return [[fx.file, 'gemini', fx]];
  const cases: [string, keyof typeof MODELS, AgentRequest][] = [[fx.file, 'claude', fx]];
  if (fx.path === '/v1/responses') cases.push([fx.file, 'gemini', fx]);
  return cases;
});

let google: MockGoogle;
let gw: Gateway;
let key: string;

beforeAll(async () => {
  google = await startMockGoogle();
  const dir = mkdtempSync(join(tmpdir(), 'e2e-agents-vertex-'));
  writeFileSync(join(dir, 'sa.json'), JSON.stringify(google.newServiceAccount()));
  gw = await startGateway(
    'e2e-agents-vertex',
    (mockUrl) => ({
      ...FAST_TEST_SETTINGS,
      routing: { provider_header: true },
      providers: [
        {
          id: 'p-vertex',
          type: 'vertex',
          project: 'mock-project',
          location: 'global',
          base_url: mockUrl,
          models: [
            { id: MODELS.claude, upstream: CLAUDE },
            { id: MODELS.gemini, upstream: GEMINI },
          ],
        },
      ],
      models: Object.values(MODELS).map(testModel),
      groups: { default: Object.values(MODELS) },
    }),
    {
      env: { GOOGLE_APPLICATION_CREDENTIALS: join(dir, 'sa.json') },
      mock: { vertex: { ...DEFAULT_VERTEX_BEHAVIOUR, googleKeys: [...google.signingKeys] } },
    },
  );
  key = (await gw.createKey()).raw;
}, 30_000);

afterAll(async () => {
  await gw?.close();
  await google?.close();
});

/** The agent's own headers, minus what the transport and the SDK set themselves. */
function agentHeaders(headers: Record<string, string>): Record<string, string> {
  const skip = new Set([
    'authorization',
    'x-api-key',
    'x-goog-api-key',
    'content-length',
    'host',
    'accept-encoding',
    'connection',
  ]);
  return Object.fromEntries(Object.entries(headers).filter(([k]) => !skip.has(k.toLowerCase())));
}

interface Answer {
  readonly requestId: string | null;
  readonly provider: string | null;
  readonly final: unknown;
}

async function replay(fx: AgentRequest, model: string): Promise<Answer> {
  let headers: Headers | null = null;
  const seeing: typeof fetch = async (input, init) => {
    const res = await fetch(input, init);
    headers = res.headers;
    return res;
  };
  const defaultHeaders = agentHeaders(fx.headers);
  let final: unknown;
  if (isGemini(fx)) {
    final = await replayGemini(signedByMock(fx), model, {
      apiKey: key,
      baseUrl: gw.edgeUrl,
      headers: defaultHeaders,
      fetch: seeing,
    });
  } else {
    const options = { apiKey: key, maxRetries: 0, defaultHeaders, fetch: seeing };
    const body = { ...fx.body, model };
    if (fx.path.startsWith('/v1/messages')) {
      const query = fx.path.includes('?') ? { beta: 'true' } : undefined;
      final = await new Anthropic({ baseURL: gw.edgeUrl, ...options }).messages
        .stream(body as unknown as Anthropic.MessageStreamParams, { query })
        .finalMessage();
    } else if (fx.path === '/v1/responses') {
      final = await new OpenAI({ baseURL: `${gw.edgeUrl}/v1`, ...options }).responses
        .stream(body as unknown as OpenAI.Responses.ResponseCreateParamsStreaming)
        .finalResponse();
    } else {
      final = await new OpenAI({ baseURL: `${gw.edgeUrl}/v1`, ...options }).chat.completions
        .stream(body as unknown as OpenAI.ChatCompletionCreateParamsStreaming)
        .finalChatCompletion();
    }
  }
  const h = headers as Headers | null;
  return { requestId: h?.get('x-request-id') ?? null, provider: h?.get('x-gateway-provider') ?? null, final };
}

function assertUsable(fx: AgentRequest, final: unknown): void {
  if (isGemini(fx)) return assertGeminiUsable(fx, final as GeminiAnswer);
  if (fx.path.startsWith('/v1/messages')) {
    const m = final as Anthropic.Message;
    expect(m.content.some((b) => b.type === 'text' || b.type === 'tool_use')).toBe(true);
    expect(m.usage.output_tokens).toBeGreaterThan(0);
  } else if (fx.path === '/v1/responses') {
    const r = final as OpenAI.Responses.Response;
    expect(r.status).toBe('completed');
    expect(r.output.some((o) => o.type === 'message' || o.type === 'function_call')).toBe(true);
  } else {
    const msg = (final as OpenAI.ChatCompletion).choices[0]!.message;
    expect(Boolean(msg.content) || (msg.tool_calls?.length ?? 0) > 0).toBe(true);
  }
}

const lastUpstream = () => gw.mock.requests.filter((r) => r.method === 'POST').at(-1)!;

describe('agents on a vertex provider (global location, service-account key)', () => {
  it.each(CASES)(
    '%s -> Vertex %s: answered, parsed by the SDK, logged and charged',
    async (_, publisher, fx) => {
      const answer = await replay(fx, MODELS[publisher]);
      assertUsable(fx, answer.final);
      const counts = isGemini(fx) && methodOf(fx) === 'countTokens';
      if (!counts) expect(answer.provider).toBe('p-vertex');
      const sent = lastUpstream();
      expect(String(sent.headers.authorization)).toMatch(/^Bearer /);
      if (publisher === 'claude') {
        // Every agent streams its turns: Claude's streamRawPredict, the model only in the path.
        expect(sent.path).toBe(`${PREFIX}/anthropic/models/${CLAUDE}:streamRawPredict`);
        expect(sent.body).toMatchObject({ stream: true, anthropic_version: 'vertex-2023-10-16' });
        expect(sent.body).not.toHaveProperty('model');
        if (fx.path.startsWith('/v1/messages')) {
          // Natively: the agent's body as it sent it, but for the model and Vertex's version.
          const { model: _m, ...recorded } = fx.body;
          expect(sent.body).toEqual({ ...recorded, anthropic_version: 'vertex-2023-10-16' });
        }
      } else {
        const method = isGemini(fx) ? methodOf(fx) : 'streamGenerateContent';
        expect([sent.path, sent.query]).toEqual([
          `${PREFIX}/google/models/${GEMINI}:${method}`,
          method === 'streamGenerateContent' ? 'alt=sse' : '',
        ]);
        if (isGemini(fx)) expect(sent.body).toMatchObject({ contents: signedByMock(fx).body.contents });
      }
      const row = await gw.logRow(answer.requestId!);
      expect(row).toMatchObject({ status: 200, error_code: null, provider_id: 'p-vertex' });
      if (counts) expect(Number(row.cost_nanos)).toBe(0);
      else expect(Number(row.cost_nanos)).toBeGreaterThan(0);
    },
  );

  it('used tokens from the service-account grant at the key file token_uri', () => {
    expect(google.issued.length).toBeGreaterThan(0);
    expect(google.issued.every((t) => t.grant === 'service_account')).toBe(true);
  });
});
