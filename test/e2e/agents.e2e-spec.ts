import { readdirSync, readFileSync } from 'node:fs';
import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import OpenAI from 'openai';
import { type GatewayConfigInput } from '#libs/config';
import { DEFAULT_AZURE_BEHAVIOUR } from '#libs/testing';
import { FAST_TEST_SETTINGS, type Gateway, startGateway, testModel } from '../support/gateway.js';
import {
  askGeminiForTool,
  assertGeminiUsable,
  type GeminiAnswer,
  geminiCallsOf,
  geminiCliAdjusted,
  isGemini,
  methodOf,
  nextGeminiTurn,
  replayGemini,
  signedByMock,
} from './agents-gemini.js';

/**
 * The requests real coding agents sent (test/fixtures/agents, see its README), replayed through the
 * booted gateway to every provider type that can run an agent: each turn with the agent's own
 * headers and body (only the model and key changed; Gemini CLI's model is in the path), its
 * answer read with the official SDK's stream helper of the agent's format, and the upstream request
 * checked by the strict mock.
 */
interface AgentRequest {
  readonly agent: string;
  readonly path: string;
  readonly headers: Record<string, string>;
  readonly body: Record<string, unknown>;
}

const DIR = 'test/fixtures/agents';
const fixtures = readdirSync(DIR)
  .filter((f) => f.endsWith('.json'))
  .sort()
  .map((file) => ({ file, ...(JSON.parse(readFileSync(`${DIR}/${file}`, 'utf8')) as AgentRequest) }));

/** One model per provider type, all served by the one mock (it speaks every format). */
const TARGETS = {
  openai: 'agent-openai',
  'openai-compatible': 'agent-compatible',
  anthropic: 'agent-anthropic',
  gemini: 'agent-gemini',
  'azure-openai': 'agent-azure',
} as const;
type AgentTarget = keyof typeof TARGETS;

/**
 * Gemini 3 Flash, the strictest family: it checks thought signatures and takes both Gemini CLI's
 * thinkingLevel (Gemini 3 turns) and thinkingBudget (its Gemini 2.5 turns).
 */
const GEMINI_UPSTREAM = 'gemini-3-flash-preview';

/** The Azure deployment (of the mock's resource) agent-azure is served on, and its URLs' version. */
const AZURE_DEPLOYMENT = 'chat-prod';
const AZURE_API_VERSION = '2024-10-21';
const AZURE_KEY_ENV = 'AGENTS_AZURE_API_KEY';

function config(mockUrl: string): GatewayConfigInput {
  return {
    ...FAST_TEST_SETTINGS,
    routing: { provider_header: true },
    providers: [
      { id: 'p-openai', type: 'openai', base_url: `${mockUrl}/v1`, models: [TARGETS.openai] },
      {
        id: 'p-openai-compatible',
        type: 'openai-compatible',
        base_url: `${mockUrl}/compat/v1`,
        models: [TARGETS['openai-compatible']],
      },
      {
        id: 'p-anthropic',
        type: 'anthropic',
        base_url: mockUrl,
        probe_path: '/v1/models',
        models: [TARGETS.anthropic],
      },
      {
        id: 'p-gemini',
        type: 'gemini',
        base_url: mockUrl,
        probe_path: '/v1beta/models',
        models: [{ id: TARGETS.gemini, upstream: GEMINI_UPSTREAM }],
      },
      {
        id: 'p-azure-openai',
        type: 'azure-openai',
        base_url: mockUrl,
        api_key_env: AZURE_KEY_ENV,
        api_version: AZURE_API_VERSION,
        deployments: { [TARGETS['azure-openai']]: AZURE_DEPLOYMENT },
        models: [TARGETS['azure-openai']],
      },
    ],
    models: Object.values(TARGETS).map(testModel),
    groups: {
      default: Object.values(TARGETS),
      strict: { models: [...Object.values(TARGETS)], translation: 'strict' },
    },
  };
}

let gw: Gateway;
let key: string;

beforeAll(async () => {
  gw = await startGateway('e2e-agents', config, {
    env: { [AZURE_KEY_ENV]: DEFAULT_AZURE_BEHAVIOUR.apiKey! },
  });
  key = (await gw.createKey()).raw;
}, 30_000);

afterAll(async () => {
  await gw?.close();
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

async function replay(fx: AgentRequest, model: string, apiKey = key): Promise<Answer> {
  // Gemini's model is in the path (the SDK's `model`), never in the body.
  const body = isGemini(fx) ? fx.body : { ...fx.body, model };
  // The SDKs' stream helpers hide the HTTP response: its headers are taken on the way past.
  let headers: Headers | null = null;
  const fetchSeeingHeaders: typeof fetch = async (input, init) => {
    const res = await fetch(input, init);
    headers = res.headers;
    return res;
  };
  const options = {
    apiKey,
    maxRetries: 0,
    defaultHeaders: agentHeaders(fx.headers),
    fetch: fetchSeeingHeaders,
  };
  const final = isGemini(fx)
    ? await replayGemini(model === TARGETS.gemini ? signedByMock(fx) : fx, model, {
        apiKey,
        baseUrl: gw.edgeUrl,
        headers: options.defaultHeaders,
        fetch: fetchSeeingHeaders,
      })
    : await streamed(fx, body, options);
  const h = headers as Headers | null;
  return {
    requestId: h?.get('x-request-id') ?? null,
    adjustments: h?.get('x-gateway-adjustments') ?? null,
    provider: h?.get('x-gateway-provider') ?? null,
    final,
  };
}

/** The turn sent with the SDK of the agent's format, read with that SDK's stream helper. */
async function streamed(
  fx: AgentRequest,
  body: Record<string, unknown>,
  options: {
    apiKey: string;
    maxRetries: number;
    defaultHeaders: Record<string, string>;
    fetch: typeof fetch;
  },
): Promise<unknown> {
  if (fx.path.startsWith('/v1/messages')) {
    const client = new Anthropic({ baseURL: gw.edgeUrl, ...options });
    const query = fx.path.includes('?') ? { beta: 'true' } : undefined;
    // The recorded body carries fields the SDK's non-beta types do not name (context_management).
    return client.messages.stream(body as unknown as Anthropic.MessageStreamParams, { query }).finalMessage();
  }
  const client = new OpenAI({ baseURL: `${gw.edgeUrl}/v1`, ...options });
  if (fx.path === '/v1/responses') {
    const params = body as unknown as OpenAI.Responses.ResponseCreateParamsStreaming;
    return client.responses.stream(params).finalResponse();
  }
  const params = body as unknown as OpenAI.ChatCompletionCreateParamsStreaming;
  return client.chat.completions.stream(params).finalChatCompletion();
}

interface Answer {
  readonly requestId: string | null;
  readonly adjustments: string | null;
  readonly provider: string | null;
  /** What the SDK's stream helper assembled: the final message / response / completion. */
  readonly final: unknown;
}

/** The last model request the mock received (probes are GETs). */
const lastUpstream = () => gw.mock.requests.filter((r) => r.method === 'POST').at(-1)!;

/** The answer has what an agent reads next: text or tool calls. */
function assertUsable(fx: AgentRequest, final: unknown): void {
  if (isGemini(fx)) {
    assertGeminiUsable(fx, final as GeminiAnswer);
  } else if (fx.path.startsWith('/v1/messages')) {
    const m = final as Anthropic.Message;
    expect(m.content.some((b) => b.type === 'text' || b.type === 'tool_use')).toBe(true);
    expect(m.usage.output_tokens).toBeGreaterThan(0);
  } else if (fx.path === '/v1/responses') {
    const r = final as OpenAI.Responses.Response;
    expect(r.status).toBe('completed');
    expect(r.output.some((o) => o.type === 'message' || o.type === 'function_call')).toBe(true);
  } else {
    const c = final as OpenAI.ChatCompletion;
    const msg = c.choices[0]!.message;
    expect(Boolean(msg.content) || (msg.tool_calls?.length ?? 0) > 0).toBe(true);
  }
}

/** Model requests the mock received: per-path counts, which outlast its bounded log (probes are `/models`). */
const modelCalls = (): number =>
  Object.entries(gw.mock.stats.byPath)
    .filter(([path]) => !path.endsWith('/models'))
    .reduce((n, [, count]) => n + count, 0);

/** countTokens for a model no Gemini provider serves is counted by the gateway: no upstream call. */
const countedHere = (fx: AgentRequest, type: AgentTarget): boolean =>
  isGemini(fx) && methodOf(fx) === 'countTokens' && type !== 'gemini';
/** Every agent streams its turns but Gemini CLI's side calls (classifier, search, countTokens). */
const streams = (fx: AgentRequest): boolean => !isGemini(fx) || methodOf(fx) === 'streamGenerateContent';

/** The upstream request streams as the agent's did; a Gemini CLI body reaches Gemini as recorded. */
function expectUpstream(fx: AgentRequest, type: AgentTarget): void {
  const sent = lastUpstream();
  if (type === 'azure-openai') {
    // Codex natively, on Azure's unscoped Responses URL; the others translated to its chat URL.
    const path =
      fx.path === '/v1/responses'
        ? '/openai/responses'
        : `/openai/deployments/${AZURE_DEPLOYMENT}/chat/completions`;
    expect([sent.path, sent.query]).toEqual([path, `api-version=${AZURE_API_VERSION}`]);
    expect((sent.body as { model?: unknown }).model).toBe(AZURE_DEPLOYMENT);
  }
  if (type !== 'gemini') {
    expect(Boolean((sent.body as { stream?: unknown }).stream)).toBe(streams(fx));
    return;
  }
  const method = isGemini(fx) ? methodOf(fx) : streams(fx) ? 'streamGenerateContent' : 'generateContent';
  expect([sent.path, sent.query]).toEqual([
    `/v1beta/models/${GEMINI_UPSTREAM}:${method}`,
    method === 'streamGenerateContent' ? 'alt=sse' : '',
  ]);
  if (isGemini(fx)) expect(sent.body).toEqual(signedByMock(fx).body);
}

describe.each(Object.entries(TARGETS) as [AgentTarget, string][])(
  'agents on a %s provider',
  (type, model) => {
    it.each(fixtures.map((f) => [f.file, f] as const))(
      '%s: answered, parsed by the SDK, logged once and charged',
      async (_, fx) => {
        const before = modelCalls();
        const answer = await replay(fx, model);
        assertUsable(fx, answer.final);
        // Exactly one upstream call, which the strict mock answered 200 (a request it refuses
        // never yields a parsed answer above), or none for a count made here.
        expect(modelCalls()).toBe(before + (countedHere(fx, type) ? 0 : 1));
        const provider = countedHere(fx, type) ? null : `p-${type}`;
        // The count service sets no x-gateway-provider header: its log row names the provider.
        if (!isGemini(fx) || methodOf(fx) !== 'countTokens') expect(answer.provider).toBe(provider);
        if (provider) expectUpstream(fx, type);
        const row = await gw.logRow(answer.requestId!);
        expect(row).toMatchObject({
          status: 200,
          error_code: null,
          provider_id: provider,
          stream: streams(fx),
        });
        const rows = await gw.db.db
          .selectFrom('request_logs')
          .select((eb) => eb.fn.countAll<string>().as('n'))
          .where('request_id', '=', answer.requestId!)
          .executeTakeFirstOrThrow();
        expect(Number(rows.n)).toBe(1);
        // countTokens is free; every generation is charged for its tokens.
        if (isGemini(fx) && methodOf(fx) === 'countTokens') expect(Number(row.cost_nanos)).toBe(0);
        else expect(Number(row.cost_nanos)).toBeGreaterThan(0);
        expect(row.adjustments.join('; ').slice(0, 100)).toBe((answer.adjustments ?? '').slice(0, 100));
        if (isGemini(fx))
          expect([fx.file, row.adjustments]).toEqual([fx.file, geminiCliAdjusted(fx.file, type)]);
      },
    );
  },
);

describe('what the gateway adjusts, as the agent and the console see it', () => {
  const byFile = (file: string) => fixtures.find((f) => f.file === file)!;

  it('Claude Code on an OpenAI-format provider: hints dropped and recorded, header and log row agree', async () => {
    const answer = await replay(byFile('claude-code.messages.3.json'), TARGETS.openai);
    const row = await gw.logRow(answer.requestId!);
    expect(row.adjustments).toEqual([
      'dropped context_management',
      'dropped tools[].defer_loading',
      'dropped cache_control (3 marks; the provider caches by itself)',
      'dropped thinking.display',
      'dropped anthropic-beta header',
    ]);
    expect(answer.adjustments).toBe(row.adjustments.join('; '));
  });

  it.each(fixtures.filter((f) => !countedHere(f, 'azure-openai')).map((f) => [f.file, f] as const))(
    '%s on Azure OpenAI records what it records on OpenAI (OpenAI APIs natively, the others translated)',
    async (_, fx) => {
      const onOpenAI = await replay(fx, TARGETS.openai);
      const onAzure = await replay(fx, TARGETS['azure-openai']);
      expect(onAzure.provider).toBe('p-azure-openai');
      const [openaiRow, azureRow] = await Promise.all([
        gw.logRow(onOpenAI.requestId!),
        gw.logRow(onAzure.requestId!),
      ]);
      expect(azureRow.adjustments).toEqual(openaiRow.adjustments);
      expect(onAzure.adjustments).toBe(onOpenAI.adjustments);
      // Codex's and opencode's OpenAI APIs pass through; Claude Code and Gemini CLI are translated,
      // and each of their requests loses something in translation (so the comparison says something).
      const native = fx.path === '/v1/responses' || fx.path === '/v1/chat/completions';
      if (native) expect(azureRow.adjustments).toEqual([]);
      if (/^(claude-code|gemini-cli)\./.test(fx.file)) expect(azureRow.adjustments.length).toBeGreaterThan(0);
    },
  );

  it('Codex on Anthropic: the namespace is flattened upstream and restored for the client', async () => {
    const fx = byFile('codex.responses.3.json');
    const answer = await replay(fx, TARGETS.anthropic);
    const upstream = lastUpstream().body as { tools: { name: string; cache_control?: unknown }[] };
    expect(upstream.tools.map((t) => t.name)).toContain('multi_agent_v1__spawn_agent');
    expect(upstream.tools.at(-1)!.cache_control).toEqual({ type: 'ephemeral' });
    const row = await gw.logRow(answer.requestId!);
    expect(row.adjustments).toEqual([
      'dropped prompt_cache_key',
      'dropped client_metadata',
      'flattened tools[4] namespace multi_agent_v1 (5 tools)',
      'dropped tools[8] web_search (external_web_access: false)',
      'added cache_control breakpoints (tools, system, messages)',
    ]);
  });

  it('Codex on Anthropic searching the web gets a web_search_call item, then the message', async () => {
    const fx = byFile('codex.responses.1.json');
    const input = [{ role: 'user', content: 'Please search the web for Paris weather' }];
    const answer = await replay(
      { ...fx, body: { ...fx.body, input, tools: [{ type: 'web_search' }] } },
      TARGETS.anthropic,
    );
    const upstream = lastUpstream().body as { tools: { type: string }[] };
    expect(upstream.tools.map((t) => t.type)).toEqual(['web_search_20250305']);
    const output = (answer.final as OpenAI.Responses.Response).output;
    expect(output.map((o) => o.type)).toEqual(['web_search_call', 'message']);
    expect(output[0]).toMatchObject({
      status: 'completed',
      action: { type: 'search', query: 'Please search the web for Paris weather' },
    });
    const row = await gw.logRow(answer.requestId!);
    expect(row.adjustments).toContain('carried tools[0] web_search as web_search_20250305');
  });

  it('Codex asking for a namespaced tool gets the call back under its namespace', async () => {
    const fx = byFile('codex.responses.1.json');
    const body = { ...fx.body, tool_choice: { type: 'function', name: 'multi_agent_v1__spawn_agent' } };
    const answer = await replay({ ...fx, body }, TARGETS.anthropic);
    const calls = (answer.final as OpenAI.Responses.Response).output.filter(
      (o) => o.type === 'function_call',
    );
    expect(calls).toEqual([expect.objectContaining({ name: 'spawn_agent', namespace: 'multi_agent_v1' })]);
  });

  it('a passed-through request records nothing and sends no header', async () => {
    const answer = await replay(byFile('claude-code.messages.1.json'), TARGETS.anthropic);
    expect(answer.adjustments).toBeNull();
    expect((await gw.logRow(answer.requestId!)).adjustments).toEqual([]);
  });

  it('a group with translation: strict gets the 400 naming the field instead', async () => {
    const strictKey = (await gw.createKey({ group: 'strict' })).raw;
    const err = (await replay(byFile('claude-code.messages.1.json'), TARGETS.openai, strictKey).catch(
      (e: unknown) => e,
    )) as InstanceType<typeof Anthropic.APIError>;
    expect(err).toBeInstanceOf(Anthropic.BadRequestError);
    expect(err.message).toContain('context_management');
  });
});

/**
 * An agent's tool loop as the agent runs it: turn 2 (the recorded request, its last prompt asking
 * for the weather so the mock calls a tool), then turn 3 built from the gateway's own answer (the
 * assistant turn as the agent's SDK returned it, thinking signatures, encrypted reasoning and
 * namespaces included) plus a tool result for each call.
 */
function askForTool(fx: AgentRequest): AgentRequest {
  if (isGemini(fx)) return { ...fx, ...askGeminiForTool(fx) };
  const body = structuredClone(fx.body);
  const list = (body.messages ?? body.input) as { role?: string; content?: unknown }[];
  const last = list.findLast((m) => m.role === 'user')!;
  last.content =
    typeof last.content === 'string'
      ? `${last.content} What is the weather?`
      : [
          ...(last.content as object[]),
          { type: fx.path === '/v1/responses' ? 'input_text' : 'text', text: 'What is the weather?' },
        ];
  return { ...fx, body: { ...body, ...(body.messages ? { messages: list } : { input: list }) } };
}

function nextTurn(fx: AgentRequest, final: unknown): AgentRequest {
  if (isGemini(fx)) return { ...fx, ...nextGeminiTurn(fx, final as GeminiAnswer) };
  if (fx.path.startsWith('/v1/messages')) {
    const m = final as Anthropic.Message;
    const results = m.content
      .filter((b) => b.type === 'tool_use')
      .map((b) => ({ type: 'tool_result', tool_use_id: b.id, content: 'sunny, 21 C' }));
    const messages = [
      ...(fx.body.messages as object[]),
      { role: 'assistant', content: m.content },
      { role: 'user', content: results },
    ];
    return { ...fx, body: { ...fx.body, messages } };
  }
  if (fx.path === '/v1/responses') {
    const r = final as OpenAI.Responses.Response;
    const outputs = r.output
      .filter((o) => o.type === 'function_call')
      .map((o) => ({ type: 'function_call_output', call_id: o.call_id, output: 'sunny, 21 C' }));
    return { ...fx, body: { ...fx.body, input: [...(fx.body.input as object[]), ...r.output, ...outputs] } };
  }
  const msg = (final as OpenAI.ChatCompletion).choices[0]!.message;
  const calls = msg.tool_calls ?? [];
  const results = calls.map((c) => ({ role: 'tool', tool_call_id: c.id, content: 'sunny, 21 C' }));
  const assistant = { role: 'assistant', content: msg.content, tool_calls: calls };
  return {
    ...fx,
    body: { ...fx.body, messages: [...(fx.body.messages as object[]), assistant, ...results] },
  };
}

const toolCallsOf = (fx: AgentRequest, final: unknown): number => {
  if (isGemini(fx)) return geminiCallsOf(final as GeminiAnswer);
  if (fx.path.startsWith('/v1/messages'))
    return (final as Anthropic.Message).content.filter((b) => b.type === 'tool_use').length;
  if (fx.path === '/v1/responses')
    return (final as OpenAI.Responses.Response).output.filter((o) => o.type === 'function_call').length;
  return (final as OpenAI.ChatCompletion).choices[0]!.message.tool_calls?.length ?? 0;
};

describe.each(Object.entries(TARGETS))(
  'an agent tool loop on a %s provider, turn by turn',
  (_type, model) => {
    // The turn whose last message is the user's prompt: a tool loop's `.2`, Gemini CLI's first turn.
    const loops = fixtures.filter((f) =>
      isGemini(f) ? f.file === 'gemini-cli.generate-content.1.json' : f.file.endsWith('.2.json'),
    );
    it.each(loops.map((f) => [f.agent, f] as const))(
      '%s: the call, then the answer to its result',
      async (_, fx) => {
        const first = askForTool(fx);
        const call = await replay(first, model);
        expect(toolCallsOf(first, call.final)).toBeGreaterThan(0);
        const second = nextTurn(first, call.final);
        const answer = await replay(second, model);
        assertUsable(second, answer.final);
        expect(toolCallsOf(second, answer.final)).toBe(0);
        expect((await gw.logRow(answer.requestId!)).status).toBe(200);
      },
    );
  },
);
