import { describe, expect, it } from '@jest/globals';
import { GatewayError } from '#libs/protocol';
import { type ChatChunk, type ChatCompletion } from '../src/chat.js';
import { type ClientContext, type SseFrame } from '../src/translation.js';
import { messagesClient } from './index.js';
import { fixture, json, sseEvents } from './spec-support.js';

const ctx: ClientContext = {
  requestId: 'req_01',
  model: 'claude-sonnet-4-5',
  created: 1_700_000_000,
  includeUsage: true,
  request: {},
};
const base = { model: 'claude-sonnet-4-5', max_tokens: 100, messages: [{ role: 'user', content: 'Hi' }] };

function rejects(body: Record<string, unknown>, param: string): void {
  let caught: unknown;
  try {
    messagesClient.toHub(body);
  } catch (err) {
    caught = err;
  }
  expect(caught).toBeInstanceOf(GatewayError);
  expect((caught as GatewayError).code).toBe('invalid_request');
  expect((caught as GatewayError).details.param).toBe(param);
  expect((caught as GatewayError).message).toContain(param.split(' ')[0]);
}

const decoded = (frames: readonly SseFrame[]): { event?: string; data: unknown }[] =>
  frames.map((f) => ({ event: f.event, data: JSON.parse(f.data) as unknown }));

describe('messagesClient.toHub', () => {
  it('translates a multi-turn tool conversation with images, errors and thinking (golden)', () => {
    expect(messagesClient.toHub(json('messages-request.in.json'))).toEqual(json('messages-request.out.json'));
  });

  it('validates the body like Anthropic, naming the field', () => {
    rejects({ ...base, model: 3 }, 'model');
    rejects({ max_tokens: 5, messages: [] }, 'model');
    rejects({ ...base, max_tokens: 0 }, 'max_tokens');
    rejects({ ...base, max_tokens: 1.5 }, 'max_tokens');
    rejects({ model: 'm', messages: [] }, 'max_tokens');
    rejects({ ...base, messages: 'Hi' }, 'messages');
    rejects({ ...base, messages: [] }, 'messages');
    rejects({ ...base, messages: [{ role: 'bot', content: 'x' }] }, 'messages.0.role');
    rejects({ ...base, messages: [{ role: 'user', content: 7 }] }, 'messages.0.content');
    rejects({ ...base, messages: [{ role: 'user', content: [{ text: 'x' }] }] }, 'messages.0.content.0');
    rejects({ ...base, temperature: 1.2 }, 'temperature');
    rejects({ ...base, stop_sequences: 'END' }, 'stop_sequences');
    rejects({ ...base, tools: [{ name: 't' }] }, 'tools.0.input_schema');
    rejects({ ...base, tool_choice: { type: 'some' } }, 'tool_choice.type');
    rejects({ ...base, thinking: { type: 'enabled', budget_tokens: 10 } }, 'thinking.budget_tokens');
    rejects({ ...base, bogus: 1 }, 'bogus');
  });

  it('leaves out tool_choice auto or none and disable_parallel_tool_use when no tool is sent', () => {
    // OpenAI-format providers refuse tool_choice and parallel_tool_calls without tools; Anthropic takes them.
    const serverOnly = [{ type: 'web_search_20250305', name: 'web_search' }];
    for (const type of ['auto', 'none']) {
      for (const tools of [undefined, [], serverOnly]) {
        const hub = messagesClient.toHub({
          ...base,
          tools,
          tool_choice: { type, disable_parallel_tool_use: true },
        });
        expect(hub).not.toHaveProperty('tool_choice');
        expect(hub).not.toHaveProperty('parallel_tool_calls');
      }
    }
    rejects({ ...base, tools: serverOnly, tool_choice: { type: 'any' } }, 'tool_choice');
  });

  it('rejects what an OpenAI-format provider cannot express, naming the field', () => {
    rejects({ ...base, top_k: 5 }, 'top_k');
    const prefill = [...base.messages, { role: 'assistant', content: '{' }];
    rejects({ ...base, messages: prefill }, 'messages.1.role (a final assistant turn, prefill)');
    rejects({ ...base, mcp_servers: [] }, 'mcp_servers');
    rejects({ ...base, container: 'c' }, 'container');
    rejects({ ...base, tools: [{ type: 'bash_20250124', name: 'bash' }] }, 'tools.0.type (bash_20250124)');
    const doc = { type: 'document', source: { type: 'url', url: 'https://x/y.pdf' } };
    rejects(
      { ...base, messages: [{ role: 'user', content: [doc] }] },
      'messages.0.content.0.type (document)',
    );
    const file = { type: 'image', source: { type: 'file', file_id: 'f' } };
    rejects(
      { ...base, messages: [{ role: 'user', content: [file] }] },
      'messages.0.content.0.source.type (file)',
    );
    const img = { type: 'image', source: { type: 'url', url: 'https://x/y.png' } };
    const result = { type: 'tool_result', tool_use_id: 't', content: [img] };
    rejects(
      { ...base, messages: [{ role: 'user', content: [result] }] },
      'messages.0.content.0.content.0.type (image)',
    );
    rejects({ ...base, output_config: { effort: 'max' } }, 'output_config.effort (max)');
  });

  it('drops cache_control, maps adaptive thinking, effort and structured output', () => {
    const schema = { type: 'object', properties: {} };
    const hub = messagesClient.toHub({
      ...base,
      cache_control: { type: 'ephemeral' },
      thinking: { type: 'adaptive' },
      output_config: { effort: 'high', format: { type: 'json_schema', schema } },
    });
    expect(hub).toEqual({
      model: 'claude-sonnet-4-5',
      max_tokens: 100,
      messages: [{ role: 'user', content: 'Hi' }],
      reasoning_effort: 'high',
      response_format: { type: 'json_schema', json_schema: { name: 'output', schema, strict: true } },
    });
    expect(messagesClient.toHub({ ...base, thinking: { type: 'disabled' } }).thinking).toEqual({
      type: 'disabled',
    });
  });

  it('maps every tool_choice', () => {
    const tools = [{ name: 'f', input_schema: { type: 'object' } }];
    const choice = (tool_choice: unknown): unknown => {
      const hub = messagesClient.toHub({ ...base, tools, tool_choice });
      return [hub.tool_choice, hub.parallel_tool_calls];
    };
    expect(choice({ type: 'auto' })).toEqual(['auto', undefined]);
    expect(choice({ type: 'any' })).toEqual(['required', undefined]);
    expect(choice({ type: 'none' })).toEqual(['none', undefined]);
    expect(choice({ type: 'tool', name: 'f', disable_parallel_tool_use: true })).toEqual([
      { type: 'function', function: { name: 'f' } },
      false,
    ]);
  });
});

describe('messagesClient.fromHub', () => {
  it('translates a completion with parallel tool calls and cached tokens (golden)', () => {
    const completion = json<ChatCompletion>('messages-completion.in.json');
    expect(messagesClient.fromHub(completion, ctx)).toEqual(json('messages-completion.out.json'));
  });

  const completion = (message: Record<string, unknown>, finish_reason: string | null): ChatCompletion =>
    ({
      id: 'msg_upstream',
      object: 'chat.completion',
      created: 1,
      model: 'x',
      choices: [{ index: 0, message: { role: 'assistant', content: null, ...message }, finish_reason }],
      usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
    }) as ChatCompletion;

  it('keeps an Anthropic-shaped id and maps every finish reason', () => {
    const stop = (finish: string | null): unknown =>
      messagesClient.fromHub(completion({ content: 'x' }, finish), ctx).stop_reason;
    expect(messagesClient.fromHub(completion({ content: 'x' }, 'stop'), ctx).id).toBe('msg_upstream');
    expect(stop('stop')).toBe('end_turn');
    expect(stop('length')).toBe('max_tokens');
    expect(stop('tool_calls')).toBe('tool_use');
    expect(stop('content_filter')).toBe('refusal');
    expect(stop(null)).toBe('end_turn');
  });

  it('puts signed thinking first, or unsigned reasoning as a thinking block, and refusals as text', () => {
    const signed = { type: 'thinking', thinking: 'hmm', signature: 'sig' };
    const out = messagesClient.fromHub(
      completion({ content: 'a', thinking_blocks: [signed], reasoning_content: 'hmm' }, 'stop'),
      ctx,
    );
    expect(out.content).toEqual([signed, { type: 'text', text: 'a' }]);
    const plain = messagesClient.fromHub(completion({ content: 'a', reasoning_content: 'r' }, 'stop'), ctx);
    expect(plain.content).toEqual([
      { type: 'thinking', thinking: 'r', signature: '' },
      { type: 'text', text: 'a' },
    ]);
    const refused = messagesClient.fromHub(completion({ refusal: 'I cannot help.' }, 'stop'), ctx);
    expect(refused.content).toEqual([{ type: 'text', text: 'I cannot help.' }]);
    expect(refused.stop_reason).toBe('refusal');
  });

  it('reads empty arguments as no input and fails loudly on arguments that are not a JSON object', () => {
    const call = (args: string): ChatCompletion =>
      completion(
        { tool_calls: [{ id: 'c', type: 'function', function: { name: 'f', arguments: args } }] },
        'tool_calls',
      );
    expect(messagesClient.fromHub(call(''), ctx).content).toEqual([
      { type: 'tool_use', id: 'c', name: 'f', input: {} },
    ]);
    expect(() => messagesClient.fromHub(call('{"a":'), ctx)).toThrow(
      expect.objectContaining({ code: 'upstream_error' }),
    );
    expect(() => messagesClient.fromHub(call('[1]'), ctx)).toThrow(
      expect.objectContaining({ code: 'upstream_error' }),
    );
  });
});

describe('messagesClient.streamFromHub', () => {
  const chunksOf = (text: string): ChatChunk[] =>
    sseEvents(text)
      .filter((e) => e.data !== '[DONE]')
      .map((e) => JSON.parse(e.data) as ChatChunk);

  it('emits exactly Anthropic’s event sequence, delta by delta (golden)', () => {
    const stream = messagesClient.streamFromHub(ctx);
    const frames = [
      ...chunksOf(fixture('messages-stream.sse')).flatMap((c) => stream.push(c)),
      ...stream.end(),
    ];
    expect(decoded(frames)).toEqual(json('messages-stream.events.json'));
  });

  it('writes each delta as soon as its chunk arrives', () => {
    const stream = messagesClient.streamFromHub(ctx);
    const chunk = (content: string): ChatChunk => ({
      id: 'c',
      object: 'chat.completion.chunk',
      created: 1,
      model: 'm',
      choices: [{ index: 0, delta: { content }, finish_reason: null }],
    });
    expect(stream.push(chunk('Hel')).map((f) => f.event)).toEqual([
      'message_start',
      'content_block_start',
      'content_block_delta',
    ]);
    expect(decoded(stream.push(chunk('lo')))).toEqual([
      {
        event: 'content_block_delta',
        data: { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'lo' } },
      },
    ]);
  });

  it('streams a signed thinking block with its signature and a redacted one whole', () => {
    const stream = messagesClient.streamFromHub(ctx);
    const push = (delta: Record<string, unknown>): SseFrame[] =>
      stream.push({
        id: 'c',
        object: 'chat.completion.chunk',
        created: 1,
        model: 'm',
        choices: [{ index: 0, delta, finish_reason: null }],
      });
    push({ reasoning_content: 'ab' });
    const sig = push({ thinking_blocks: [{ type: 'thinking', thinking: 'abc', signature: 'S' }] });
    expect(decoded(sig).map((f) => f.data)).toEqual([
      { type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking: 'c' } },
      { type: 'content_block_delta', index: 0, delta: { type: 'signature_delta', signature: 'S' } },
      { type: 'content_block_stop', index: 0 },
    ]);
    expect(
      decoded(push({ thinking_blocks: [{ type: 'redacted_thinking', data: 'R' }] })).map((f) => f.data),
    ).toEqual([
      { type: 'content_block_start', index: 1, content_block: { type: 'redacted_thinking', data: 'R' } },
      { type: 'content_block_stop', index: 1 },
    ]);
  });

  it('ends an empty stream as a well-formed empty message', () => {
    const frames = messagesClient.streamFromHub(ctx).end();
    expect(frames.map((f) => f.event)).toEqual(['message_start', 'message_delta', 'message_stop']);
    expect(JSON.parse(frames[0]!.data)).toMatchObject({
      message: { id: 'msg_req_01', model: 'claude-sonnet-4-5' },
    });
  });

  it('fails with Anthropic’s error event, and nothing after it', () => {
    const stream = messagesClient.streamFromHub(ctx);
    expect(stream.fail({ type: 'overloaded_error', message: 'Overloaded' })).toEqual([
      { event: 'error', data: '{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}' },
    ]);
    expect(stream.end()).toEqual([]);
    const other = messagesClient.streamFromHub(ctx);
    expect(JSON.parse(other.fail({ type: 'upstream_error', message: 'boom' })[0]!.data)).toEqual({
      type: 'error',
      error: { type: 'api_error', message: 'boom' },
    });
  });
});
