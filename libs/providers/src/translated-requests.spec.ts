import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from '@jest/globals';
import { GatewayError } from '#libs/protocol';
import {
  validateChatRequest,
  validateConverse,
  validateGeminiRequest,
  validateMessagesRequest,
  validateVertexRequest,
} from '#libs/testing';
import { anthropicProvider, messagesClient } from '../anthropic/index.js';
import { azureOpenAIAdapter } from '../azure-openai/index.js';
import { converseProvider } from '../bedrock/index.js';
import { countContentTokensApi, geminiClient, geminiProvider } from '../gemini/index.js';
import { openAICompatibleProvider } from '../openai-compatible/index.js';
import { chatClient, openAIChatProvider, responsesClient } from '../openai/index.js';
import { perplexityProvider } from '../perplexity/index.js';
import { vertexAnthropicProvider, vertexGeminiProvider } from '../vertex/index.js';
import { type RequestTarget } from './adapter.js';
import { type ClientFormat, type ProviderFormat } from './translation.js';
import { type JsonObject } from './types.js';

/**
 * Every translated request either is refused by the gateway (a 400 naming the field) or passes
 * the mock's validator of the target vendor, which rejects what that vendor rejects. Inputs: the
 * recorded agent requests and the edge cases where the vendors' rules differ.
 */
const CLIENTS: Readonly<Record<string, ClientFormat>> = {
  '/v1/chat/completions': chatClient,
  '/v1/responses': responsesClient,
  '/v1/messages': messagesClient,
};

/** Google's `models/{model}:{method}`: the model and the stream flag are in the path, not the body. */
const GEMINI_PATH = /^\/v1beta\/models\/([^:]+):(generateContent|streamGenerateContent)$/;

/** The client format of a path, and the target the path names (Gemini's), or null. */
function clientOf(path: string): { client: ClientFormat; target?: RequestTarget } | null {
  const gemini = GEMINI_PATH.exec(path);
  if (gemini) {
    return {
      client: geminiClient,
      target: { model: gemini[1], stream: gemini[2] === 'streamGenerateContent' },
    };
  }
  const client = CLIENTS[path];
  return client ? { client } : null;
}

/** A provider type, the upstream model it is sent, and the mock's validator of that vendor. */
const TARGETS: readonly [string, ProviderFormat, string, (body: JsonObject) => unknown][] = [
  ['openai', openAIChatProvider, 'up', (b) => validateChatRequest(b, 'openai')],
  // Azure OpenAI takes what OpenAI takes, the deployment as the model: its adapter's own hub format.
  [
    'azure-openai',
    azureOpenAIAdapter.hubFormat({} as never),
    'chat-prod',
    (b) => validateChatRequest(b, 'openai'),
  ],
  ['openai-compatible', openAICompatibleProvider, 'up', (b) => validateChatRequest(b, 'compat')],
  ['perplexity', perplexityProvider, 'up', (b) => validateChatRequest(b, 'perplexity')],
  ['anthropic', anthropicProvider, 'up', validateMessagesRequest],
  // Gemini's rules differ by family (thinking ranges, Gemini 3's thought signatures): one of each.
  ['gemini 2.5', geminiProvider, 'gemini-2.5-flash', (b) => validateGeminiRequest(b, 'gemini-2.5-flash')],
  [
    'gemini 3',
    geminiProvider,
    'gemini-3-flash-preview',
    (b) => validateGeminiRequest(b, 'gemini-3-flash-preview'),
  ],
  // Bedrock's Converse, for Claude (thinking carried) and for a model that is not Claude.
  ['bedrock claude', converseProvider, 'us.anthropic.claude-sonnet-4-5-20250929-v1:0', validateConverse],
  ['bedrock nova', converseProvider, 'amazon.nova-pro-v1:0', validateConverse],
  // Vertex AI: the same translators on Vertex's bodies (Claude's without its model, with Vertex's
  // version; Gemini's with every role), checked as the mock Vertex checks them, then as the vendor.
  [
    'vertex claude',
    vertexAnthropicProvider,
    'claude-sonnet-4@20250514',
    (b) => validateVertexRequest('anthropic', 'claude-sonnet-4@20250514', b),
  ],
  [
    'vertex gemini 3',
    vertexGeminiProvider,
    'gemini-3-flash-preview',
    (b) => validateVertexRequest('google', 'gemini-3-flash-preview', b),
  ],
];

const W = { type: 'object', properties: { location: { type: 'string' } } };
const user = { role: 'user', content: 'Weather in Paris?' };
const EDGE_CASES: readonly [string, string, JsonObject][] = [
  [
    'chat: forced tool with a reasoning effort',
    '/v1/chat/completions',
    {
      messages: [user],
      tools: [{ type: 'function', function: { name: 'w', parameters: W } }],
      tool_choice: 'required',
      reasoning_effort: 'low',
    },
  ],
  [
    'chat: temperature with a reasoning effort',
    '/v1/chat/completions',
    { messages: [user], temperature: 0.5, reasoning_effort: 'low' },
  ],
  [
    'chat: tool loop with empty content and arguments',
    '/v1/chat/completions',
    {
      messages: [
        user,
        {
          role: 'assistant',
          content: '',
          tool_calls: [{ id: 'c1', type: 'function', function: { name: 'w', arguments: '' } }],
        },
        { role: 'tool', tool_call_id: 'c1', content: '' },
        { role: 'user', content: 'and tomorrow?' },
      ],
      tools: [{ type: 'function', function: { name: 'w', parameters: W } }],
    },
  ],
  [
    'messages: tool_choice without tools',
    '/v1/messages',
    {
      max_tokens: 10,
      messages: [user],
      tools: [],
      tool_choice: { type: 'auto', disable_parallel_tool_use: true },
    },
  ],
  [
    'messages: tool results first, then text, one of them an error',
    '/v1/messages',
    {
      max_tokens: 10,
      messages: [
        user,
        {
          role: 'assistant',
          content: [
            { type: 'tool_use', id: 't1', name: 'w', input: {} },
            { type: 'tool_use', id: 't2', name: 'w', input: {} },
          ],
        },
        {
          role: 'user',
          content: [
            {
              type: 'tool_result',
              tool_use_id: 't1',
              is_error: true,
              content: [{ type: 'text', text: 'boom' }],
            },
            { type: 'tool_result', tool_use_id: 't2', content: '' },
            { type: 'text', text: 'go on' },
          ],
        },
      ],
      tools: [{ name: 'w', input_schema: W }],
    },
  ],
  [
    'responses: tool_choice and parallel calls with only a hosted tool',
    '/v1/responses',
    {
      input: 'hi',
      tools: [{ type: 'web_search' }],
      tool_choice: 'auto',
      parallel_tool_calls: true,
    },
  ],
  ['responses: empty tools', '/v1/responses', { input: 'hi', tools: [] }],
  [
    'responses: forced tool with a reasoning effort',
    '/v1/responses',
    {
      input: 'hi',
      tools: [{ type: 'function', name: 'w', parameters: W }],
      tool_choice: 'required',
      reasoning: { effort: 'high' },
    },
  ],
];

const AGENTS_DIR = new URL('../../../test/fixtures/agents/', import.meta.url);
const AGENT_FIXTURES = readdirSync(AGENTS_DIR)
  .filter((f) => f.endsWith('.json'))
  .map((f): [string, string, JsonObject] => {
    const fixture = JSON.parse(readFileSync(new URL(f, AGENTS_DIR), 'utf8')) as {
      path: string;
      body: JsonObject;
    };
    return [f, fixture.path.split('?')[0]!, fixture.body];
  });
/** countTokens is never translated: providers of other formats have it counted by the gateway. */
const UNTRANSLATED = /:countTokens$/;
const AGENT_CASES = AGENT_FIXTURES.filter(([, path]) => !UNTRANSLATED.test(path));

/** A Gemini client reaches a Gemini provider natively, never through the hub. */
const translated = (path: string, provider: ProviderFormat): boolean =>
  !(GEMINI_PATH.test(path) && (provider === geminiProvider || provider === vertexGeminiProvider)) &&
  // ...nor a Messages client a Claude model on Vertex (rawPredict passes it through).
  !(path === '/v1/messages' && provider === vertexAnthropicProvider) &&
  // ...nor a Messages client a Bedrock provider (InvokeModel: bedrock/agents.spec.ts).
  !(path === '/v1/messages' && provider === converseProvider);

const CASES = [...EDGE_CASES, ...AGENT_CASES].flatMap(([name, path, body]) =>
  TARGETS.filter(([, provider]) => translated(path, provider)).map(([target, provider, model, validate]) => ({
    name,
    path,
    body,
    target,
    provider,
    model,
    validate,
  })),
);

describe('the inputs', () => {
  it('cover every recorded agent request: each has a client format, or is never translated', () => {
    for (const [name, path] of AGENT_FIXTURES)
      expect([name, clientOf(path) !== null || UNTRANSLATED.test(path)]).toEqual([name, true]);
    const geminiCli = AGENT_CASES.filter(([name]) => name.startsWith('gemini-cli.'));
    expect(geminiCli.length).toBe(7);
  });
});

describe('recorded countTokens requests, for a model no Gemini provider serves', () => {
  const counts = AGENT_FIXTURES.filter(([, path]) => UNTRANSLATED.test(path));
  /** The body without its images (each fixture carries one, as Gemini CLI counts before sending one). */
  const textOnly = (body: JsonObject): JsonObject => ({
    contents: (body.contents as { parts: JsonObject[] }[]).map((c) => ({
      ...c,
      parts: c.parts.filter((p) => p.inlineData === undefined),
    })),
  });

  it.each(counts)('%s is counted here, its image included', async (_, path, body) => {
    const target = { model: /models\/([^:]+):/.exec(path)![1], stream: false };
    const local = countContentTokensApi.localCount!;
    for (const family of ['o200k', 'claude'] as const) {
      const text = await local.count(textOnly(body), target, family);
      expect(text).toBeGreaterThan(0);
      expect(await local.count(structuredClone(body), target, family)).toBeGreaterThan(text);
    }
  });
});

describe('translated requests are ones the target vendor takes', () => {
  it.each(CASES)('$name -> $target', ({ path, body, provider, model, validate }) => {
    const { client, target } = clientOf(path)!;
    let upstream: JsonObject;
    try {
      // A Gemini body names no model: its path does (the target).
      const sent = structuredClone(target ? body : { model: 'm', ...body });
      const hub = client.toHub(sent, undefined, target);
      upstream = provider.fromHub(hub, model).body;
    } catch (err) {
      // A refusal is the gateway's own 400, never a vendor's.
      expect(err).toBeInstanceOf(GatewayError);
      expect((err as GatewayError).code).toBe('invalid_request');
      return;
    }
    expect(validate(upstream)).toBeNull();
  });
});
