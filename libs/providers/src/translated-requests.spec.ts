import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from '@jest/globals';
import { GatewayError } from '#libs/protocol';
import { validateChatRequest, validateMessagesRequest } from '#libs/testing';
import { anthropicProvider, messagesClient } from '../anthropic/index.js';
import { openAICompatibleProvider } from '../openai-compatible/index.js';
import { chatClient, openAIChatProvider, responsesClient } from '../openai/index.js';
import { perplexityProvider } from '../perplexity/index.js';
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
const TARGETS: readonly [string, ProviderFormat, (body: JsonObject) => unknown][] = [
  ['openai', openAIChatProvider, (b) => validateChatRequest(b, 'openai')],
  ['openai-compatible', openAICompatibleProvider, (b) => validateChatRequest(b, 'compat')],
  ['perplexity', perplexityProvider, (b) => validateChatRequest(b, 'perplexity')],
  ['anthropic', anthropicProvider, validateMessagesRequest],
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
const AGENT_CASES = readdirSync(AGENTS_DIR)
  .filter((f) => f.endsWith('.json'))
  .map((f): [string, string, JsonObject] => {
    const fixture = JSON.parse(readFileSync(new URL(f, AGENTS_DIR), 'utf8')) as {
      path: string;
      body: JsonObject;
    };
    return [f, fixture.path.split('?')[0]!, fixture.body];
  });

const CASES = [...EDGE_CASES, ...AGENT_CASES].flatMap(([name, path, body]) =>
  TARGETS.map(([target, provider, validate]) => ({ name, path, body, target, provider, validate })),
);

describe('translated requests are ones the target vendor takes', () => {
  it.each(CASES)('$name -> $target', ({ path, body, provider, validate }) => {
    const client = CLIENTS[path]!;
    let upstream: JsonObject;
    try {
      upstream = provider.fromHub(client.toHub(structuredClone({ model: 'm', ...body })), 'up').body;
    } catch (err) {
      // A refusal is the gateway's own 400, never a vendor's.
      expect(err).toBeInstanceOf(GatewayError);
      expect((err as GatewayError).code).toBe('invalid_request');
      return;
    }
    expect(validate(upstream)).toBeNull();
  });
});
