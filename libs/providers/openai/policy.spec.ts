import { readFileSync } from 'node:fs';
import { describe, expect, it } from '@jest/globals';
import { GatewayError } from '#libs/protocol';
import { AdjustmentLog } from '../src/adjustments.js';
import { type ChatChunk, type ChatCompletion } from '../src/chat.js';
import { type ClientContext } from '../src/translation.js';
import { type JsonObject } from '../src/types.js';
import { openAIChatProvider, responsesClient } from './index.js';

/** The translation policy of a Responses client (Codex) served by a chat or Anthropic provider. */
const codex = (turn: number): JsonObject =>
  (
    JSON.parse(readFileSync(`test/fixtures/agents/codex.responses.${turn}.json`, 'utf8')) as {
      body: JsonObject;
    }
  ).body;
const ctx = (request: JsonObject): ClientContext => ({
  requestId: 'req01',
  model: 'gpt-4o-mini',
  created: 1751377200,
  includeUsage: true,
  request,
});
const call = (name: string) => ({
  id: 'call_1',
  type: 'function' as const,
  function: { name, arguments: '{}' },
});

describe('responsesClient policy', () => {
  it('flattens the namespace tool of a real Codex turn, hands web_search on and drops the OpenAI-only hints', () => {
    const log = new AdjustmentLog();
    const hub = responsesClient.toHub(codex(3), log);
    const names = (hub.tools ?? []).map((t) => t.function.name);
    expect(names).toEqual([
      'exec_command',
      'write_stdin',
      'request_user_input',
      'view_image',
      'multi_agent_v1__close_agent',
      'multi_agent_v1__resume_agent',
      'multi_agent_v1__send_input',
      'multi_agent_v1__spawn_agent',
      'multi_agent_v1__wait_agent',
      'get_goal',
      'create_goal',
      'update_goal',
    ]);
    expect(log.items).toEqual([
      'dropped prompt_cache_key',
      'dropped client_metadata',
      'flattened tools[4] namespace multi_agent_v1 (5 tools)',
      // Codex asks for OpenAI's cached results only: no provider's live search may stand in.
      'dropped tools[8] web_search (external_web_access: false)',
    ]);
    expect(hub.web_search).toBeUndefined();
  });

  it('hands a web_search tool that allows live access on to the provider, which carries or drops it', () => {
    const body = { ...codex(3), tools: [{ type: 'web_search' }] };
    const hub = responsesClient.toHub(body, new AdjustmentLog());
    expect(hub.web_search).toEqual({ param: 'tools[0]', kind: 'web_search' });
    const chat = new AdjustmentLog();
    const upstream = openAIChatProvider.fromHub(hub, 'gpt-4o-mini', chat).body;
    expect(upstream).not.toHaveProperty('web_search');
    expect(chat.items).toEqual(['dropped tools[0] web_search']);
  });

  it('restores a flattened call in the answer, whole and streamed', () => {
    const request = codex(1);
    const completion: ChatCompletion = {
      id: 'c1',
      object: 'chat.completion',
      created: 0,
      model: 'm',
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content: null, tool_calls: [call('multi_agent_v1__spawn_agent')] },
          finish_reason: 'tool_calls',
        },
      ],
    };
    const out = responsesClient.fromHub(completion, ctx(request)) as { output: JsonObject[] };
    expect(out.output[0]).toMatchObject({
      type: 'function_call',
      name: 'spawn_agent',
      namespace: 'multi_agent_v1',
    });

    const stream = responsesClient.streamFromHub(ctx(request));
    const chunk = (
      delta: ChatChunk['choices'][0]['delta'],
      finish: ChatChunk['choices'][0]['finish_reason'] = null,
    ): ChatChunk => ({
      id: 'c1',
      object: 'chat.completion.chunk',
      created: 0,
      model: 'm',
      choices: [{ index: 0, delta, finish_reason: finish }],
    });
    const frames = [
      ...stream.push(chunk({ tool_calls: [{ index: 0, ...call('multi_agent_v1__wait_agent') }] })),
      ...stream.push(chunk({}, 'tool_calls')),
      ...stream.end(),
    ].map((f) => JSON.parse(f.data) as { type: string; item?: JsonObject });
    const items = frames.filter((f) => f.type.startsWith('response.output_item.')).map((f) => f.item);
    expect(items).toEqual([
      expect.objectContaining({ name: 'wait_agent', namespace: 'multi_agent_v1' }),
      expect.objectContaining({ name: 'wait_agent', namespace: 'multi_agent_v1' }),
    ]);
    // A plain function keeps its name and gets no namespace.
    const plain = responsesClient.fromHub(
      {
        ...completion,
        choices: [
          {
            ...completion.choices[0]!,
            message: { role: 'assistant', content: null, tool_calls: [call('exec_command')] },
          },
        ],
      },
      ctx(request),
    ) as { output: JsonObject[] };
    expect(plain.output[0]).not.toHaveProperty('namespace');
  });

  it('flattens a namespaced call sent back in the next turn’s history', () => {
    const history = [
      {
        type: 'function_call',
        call_id: 'call_1',
        name: 'spawn_agent',
        namespace: 'multi_agent_v1',
        arguments: '{}',
      },
      { type: 'function_call_output', call_id: 'call_1', output: 'ok' },
    ];
    const hub = responsesClient.toHub({ model: 'm', input: history });
    expect(hub.messages[0]?.tool_calls?.[0]?.function.name).toBe('multi_agent_v1__spawn_agent');
  });

  it('refuses a built-in tool and the hints under translation: strict', () => {
    const refused = (body: JsonObject): unknown => {
      try {
        responsesClient.toHub(body, new AdjustmentLog(true));
      } catch (err) {
        if (err instanceof GatewayError) return err.details.param;
      }
      return null;
    };
    expect(refused({ model: 'm', input: 'x', tools: [{ type: 'file_search' }] })).toBe('tools[0].type');
    // web_search is refused by a provider that cannot run it, when strict.
    const hub = responsesClient.toHub({ model: 'm', input: 'x', tools: [{ type: 'web_search' }] });
    expect(() => openAIChatProvider.fromHub(hub, 'gpt-4o-mini', new AdjustmentLog(true))).toThrow(
      expect.objectContaining({ details: expect.objectContaining({ param: 'tools[0].type' }) }),
    );
    expect(refused({ model: 'm', input: 'x', prompt_cache_key: 'k' })).toBe('prompt_cache_key');
  });
});
