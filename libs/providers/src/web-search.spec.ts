import { describe, expect, it } from '@jest/globals';
import { GatewayError } from '#libs/protocol';
import { anthropicProvider, messagesClient } from '../anthropic/index.js';
import { chatClient, responsesClient } from '../openai/index.js';
import { AdjustmentLog } from './adjustments.js';
import { type ChatChunk } from './chat.js';
import { type ClientContext, type SseEvent } from './translation.js';
import { type JsonObject } from './types.js';

/**
 * A Responses client's web_search served by Anthropic's web search server tool, both ways.
 * Anthropic's shapes as its web search documentation shows them.
 */
const SEARCH_ID = 'srvtoolu_01WYG3ziw53XMcoyKL4XcZmE';
const QUERY = 'claude shannon birth date';
const RESULT = {
  type: 'web_search_tool_result',
  tool_use_id: SEARCH_ID,
  content: [
    {
      type: 'web_search_result',
      url: 'https://en.wikipedia.org/wiki/Claude_Shannon',
      title: 'Claude Shannon - Wikipedia',
      encrypted_content: 'EqgfCioIARgBIiQ3YTAw',
      page_age: 'April 30, 2025',
    },
  ],
};
const CITED = {
  type: 'text',
  text: 'Claude Shannon was born on April 30, 1916, in Petoskey, Michigan',
  citations: [
    {
      type: 'web_search_result_location',
      url: 'https://en.wikipedia.org/wiki/Claude_Shannon',
      title: 'Claude Shannon - Wikipedia',
      encrypted_index: 'Eo8BCioIAhgBIiQyYjQ0',
      cited_text: 'Claude Elwood Shannon (April 30, 1916 – February 24, 2001)',
    },
  ],
};
const USAGE = { input_tokens: 6039, output_tokens: 931, server_tool_use: { web_search_requests: 1 } };
const MESSAGE = {
  id: 'msg_01',
  type: 'message',
  role: 'assistant',
  model: 'claude-sonnet-4-5',
  content: [
    { type: 'text', text: "I'll search for when Claude Shannon was born." },
    { type: 'server_tool_use', id: SEARCH_ID, name: 'web_search', input: { query: QUERY } },
    RESULT,
    { type: 'text', text: 'Based on the search results, ' },
    CITED,
  ],
  stop_reason: 'end_turn',
  stop_sequence: null,
  usage: USAGE,
};

const event = (data: JsonObject): SseEvent => ({ event: String(data.type), data: JSON.stringify(data) });
const STREAM: SseEvent[] = [
  {
    type: 'message_start',
    message: { ...MESSAGE, content: [], stop_reason: null, usage: { input_tokens: 6039, output_tokens: 1 } },
  },
  { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
  { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: "I'll search." } },
  { type: 'content_block_stop', index: 0 },
  {
    type: 'content_block_start',
    index: 1,
    content_block: { type: 'server_tool_use', id: SEARCH_ID, name: 'web_search', input: {} },
  },
  { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: '{"query' } },
  {
    type: 'content_block_delta',
    index: 1,
    delta: { type: 'input_json_delta', partial_json: `": "${QUERY}"}` },
  },
  { type: 'content_block_stop', index: 1 },
  { type: 'content_block_start', index: 2, content_block: RESULT },
  { type: 'content_block_stop', index: 2 },
  { type: 'content_block_start', index: 3, content_block: { type: 'text', text: '' } },
  { type: 'content_block_delta', index: 3, delta: { type: 'text_delta', text: 'Born in 1916.' } },
  {
    type: 'content_block_delta',
    index: 3,
    delta: { type: 'citations_delta', citation: CITED.citations[0] },
  },
  { type: 'content_block_stop', index: 3 },
  { type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: USAGE },
  { type: 'message_stop' },
].map(event);

const REQUEST = {
  model: 'gpt-5',
  input: 'Please search: when was Shannon born?',
  tools: [{ type: 'web_search' }],
};
const ctx = (request: JsonObject = REQUEST): ClientContext => ({
  requestId: 'req01',
  model: 'gpt-5',
  created: 1751377200,
  includeUsage: true,
  request,
});

function hubChunks(): ChatChunk[] {
  const transform = anthropicProvider.streamToHub();
  return [...STREAM.flatMap((e) => transform.push(e)), ...transform.end()];
}

const frames = (stream: { push(c: ChatChunk): { data: string }[]; end(): { data: string }[] }) => [
  ...hubChunks().flatMap((c) => stream.push(c)),
  ...stream.end(),
];

describe('web_search from a Responses client to Anthropic', () => {
  it('carries the tool as web_search_20250305 with the options Anthropic has', () => {
    const log = new AdjustmentLog();
    const hub = responsesClient.toHub(
      {
        ...REQUEST,
        tools: [
          { type: 'function', name: 'exec', parameters: { type: 'object', properties: {} } },
          {
            type: 'web_search',
            search_context_size: 'high',
            filters: { allowed_domains: ['wikipedia.org'] },
            user_location: { type: 'approximate', city: 'Paris', country: 'FR', timezone: 'Europe/Paris' },
            external_web_access: true,
          },
        ],
      },
      log,
    );
    const body = anthropicProvider.fromHub(hub, 'claude-sonnet-4-5', log).body as { tools: JsonObject[] };
    expect(body.tools[1]).toEqual({
      type: 'web_search_20250305',
      name: 'web_search',
      allowed_domains: ['wikipedia.org'],
      user_location: { type: 'approximate', city: 'Paris', country: 'FR', timezone: 'Europe/Paris' },
      cache_control: { type: 'ephemeral' },
    });
    expect(log.items).toEqual([
      'carried tools[1] web_search as web_search_20250305',
      'dropped tools[1].search_context_size',
      'dropped tools[1].external_web_access',
      'added cache_control breakpoints (tools, messages)',
    ]);
  });

  it('carries web_search_preview too, and a search alone under strict', () => {
    const log = new AdjustmentLog(true);
    const hub = responsesClient.toHub({ ...REQUEST, tools: [{ type: 'web_search_preview' }] }, log);
    const body = anthropicProvider.fromHub(hub, 'claude-sonnet-4-5', log).body;
    expect(body.tools).toEqual([
      { type: 'web_search_20250305', name: 'web_search', cache_control: { type: 'ephemeral' } },
    ]);
    expect(body).not.toHaveProperty('tool_choice');
    expect(log.items[0]).toBe('carried tools[0] web_search_preview as web_search_20250305');
  });

  it('drops the search when a function tool already has its name', () => {
    const log = new AdjustmentLog();
    const fn = { type: 'function', name: 'web_search', parameters: { type: 'object', properties: {} } };
    const hub = responsesClient.toHub({ ...REQUEST, tools: [fn, { type: 'web_search' }] }, log);
    const body = anthropicProvider.fromHub(hub, 'claude-sonnet-4-5', log).body as { tools: JsonObject[] };
    expect(body.tools.map((t) => t.name)).toEqual(['web_search']);
    expect(body.tools[0]).toHaveProperty('input_schema');
    expect(log.items[0]).toBe('dropped tools[1] web_search (a function has its name)');
    expect(() => anthropicProvider.fromHub(hub, 'claude-sonnet-4-5', new AdjustmentLog(true))).toThrow(
      GatewayError,
    );
  });
});

describe('Anthropic search answers through the hub', () => {
  it('a whole answer: the search before the message, results and citations skipped, searches not counted', () => {
    const hub = anthropicProvider.toHub(MESSAGE);
    expect(hub.choices[0]!.message.web_search_calls).toEqual([{ id: SEARCH_ID, query: QUERY }]);
    expect(hub.usage).toMatchObject({ prompt_tokens: 6039, completion_tokens: 931, total_tokens: 6970 });
    const out = responsesClient.fromHub(hub, ctx()) as { output: JsonObject[] };
    expect(out.output).toEqual([
      {
        id: 'ws_req01_0',
        type: 'web_search_call',
        status: 'completed',
        action: { type: 'search', query: QUERY },
      },
      expect.objectContaining({
        type: 'message',
        content: [
          expect.objectContaining({
            type: 'output_text',
            text: `I'll search for when Claude Shannon was born.Based on the search results, ${CITED.text}`,
            annotations: [],
          }),
        ],
      }),
    ]);
  });

  it('a stream: the search call whole at its block stop, the result block skipped', () => {
    const calls = hubChunks().flatMap((c) => c.choices[0]?.delta.web_search_calls ?? []);
    expect(calls).toEqual([{ id: SEARCH_ID, query: QUERY }]);
  });

  it('streams OpenAI web_search_call events between the message items', () => {
    const events = frames(responsesClient.streamFromHub(ctx())).map(
      (f) =>
        JSON.parse(f.data) as { type: string; item?: JsonObject; item_id?: string; output_index?: number },
    );
    const search = events.filter(
      (e) => e.type.includes('web_search_call') || e.item?.type === 'web_search_call',
    );
    expect(search).toEqual([
      expect.objectContaining({
        type: 'response.output_item.added',
        output_index: 1,
        item: {
          id: 'ws_req01_1',
          type: 'web_search_call',
          status: 'in_progress',
          action: { type: 'search', query: QUERY },
        },
      }),
      expect.objectContaining({
        type: 'response.web_search_call.in_progress',
        item_id: 'ws_req01_1',
        output_index: 1,
      }),
      expect.objectContaining({
        type: 'response.web_search_call.searching',
        item_id: 'ws_req01_1',
        output_index: 1,
      }),
      expect.objectContaining({
        type: 'response.web_search_call.completed',
        item_id: 'ws_req01_1',
        output_index: 1,
      }),
      expect.objectContaining({
        type: 'response.output_item.done',
        output_index: 1,
        item: {
          id: 'ws_req01_1',
          type: 'web_search_call',
          status: 'completed',
          action: { type: 'search', query: QUERY },
        },
      }),
    ]);
    const completed = events.at(-1) as unknown as { type: string; response: { output: JsonObject[] } };
    expect(completed.type).toBe('response.completed');
    expect(completed.response.output.map((o) => o.type)).toEqual(['message', 'web_search_call', 'message']);
    expect(completed.response.output[2]).toMatchObject({ content: [{ text: 'Born in 1916.' }] });
  });

  it('chat and messages clients get the answer without the search', () => {
    const hub = anthropicProvider.toHub(MESSAGE);
    const chat = chatClient.fromHub(hub, ctx({})) as { choices: { message: JsonObject }[] };
    expect(chat.choices[0]!.message).not.toHaveProperty('web_search_calls');
    const chatFrames = frames(chatClient.streamFromHub(ctx({}))).map((f) => f.data);
    expect(chatFrames.some((d) => d.includes('web_search'))).toBe(false);
    // The chunk that carried only the search is left out, not sent empty.
    expect(chatFrames.filter((d) => d.includes('"delta":{},"finish_reason":null')).length).toBe(0);

    const messages = messagesClient.fromHub(hub, ctx({})) as { content: JsonObject[] };
    expect(messages.content.map((b) => b.type)).toEqual(['text']);
    const messageFrames = frames(messagesClient.streamFromHub(ctx({}))).map((f) => f.data);
    expect(messageFrames.some((d) => d.includes('web_search') || d.includes('server_tool_use'))).toBe(false);
  });

  it('other server tools are still the upstream’s error', () => {
    const fetch = {
      type: 'server_tool_use',
      id: 'srvtoolu_2',
      name: 'web_fetch',
      input: { url: 'https://x' },
    };
    expect(() => anthropicProvider.toHub({ ...MESSAGE, content: [fetch] })).toThrow(
      expect.objectContaining({ code: 'upstream_error' }),
    );
  });
});
