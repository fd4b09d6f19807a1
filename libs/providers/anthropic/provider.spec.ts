import { describe, expect, it } from '@jest/globals';
import { GatewayError } from '#libs/protocol';
import { AdjustmentLog } from '../src/adjustments.js';
import { type ChatChunk, type ChatRequest } from '../src/chat.js';
import { anthropicProvider } from './index.js';
import { fixture, json, sseEvents } from './spec-support.js';

const hub = (extra: Partial<ChatRequest> & Record<string, unknown> = {}): ChatRequest => ({
  model: 'claude',
  messages: [{ role: 'user', content: 'Hi' }],
  ...extra,
});
const body = (req: ChatRequest): Record<string, unknown> => anthropicProvider.fromHub(req, 'claude-x').body;

function rejects(req: ChatRequest, param: string): void {
  let caught: unknown;
  try {
    body(req);
  } catch (err) {
    caught = err;
  }
  expect(caught).toBeInstanceOf(GatewayError);
  expect((caught as GatewayError).code).toBe('invalid_request');
  expect((caught as GatewayError).details.param).toBe(param);
  expect((caught as GatewayError).message).toContain(param.split(' ')[0]);
}

describe('anthropicProvider.fromHub', () => {
  it('translates a multi-turn tool conversation with images and thinking (golden)', () => {
    const out = anthropicProvider.fromHub(
      json<ChatRequest>('provider-request.in.json'),
      'claude-sonnet-4-5-20250929',
    );
    expect(out.path).toBe('/v1/messages');
    expect(out.headers).toEqual({ 'anthropic-version': '2023-06-01' });
    expect(out.body).toEqual(json('provider-request.out.json'));
  });

  it('defaults max_tokens to 4096, plus the thinking budget when reasoning_effort is set', () => {
    expect(body(hub()).max_tokens).toBe(4096);
    const thinking = body(hub({ reasoning_effort: 'medium' }));
    expect(thinking.thinking).toEqual({ type: 'enabled', budget_tokens: 8192 });
    expect(thinking.max_tokens).toBe(4096 + 8192);
    expect(body(hub({ max_tokens: 3000, reasoning_effort: 'high' })).thinking).toEqual({
      type: 'enabled',
      budget_tokens: 2999,
    });
    rejects(hub({ max_completion_tokens: 500, reasoning_effort: 'low' }), 'max_completion_tokens');
  });

  it('drops the thinking when tool_choice forces a tool, and a temperature other than 1 while thinking', () => {
    // Anthropic refuses both combinations, which OpenAI takes; strict translation refuses instead.
    const tools = [{ type: 'function' as const, function: { name: 'w', parameters: { type: 'object' } } }];
    const forced = body(hub({ tools, tool_choice: 'required', reasoning_effort: 'low' }));
    expect(forced).not.toHaveProperty('thinking');
    expect(forced).toMatchObject({ max_tokens: 4096, tool_choice: { type: 'any' } });
    const named = hub({
      tools,
      tool_choice: { type: 'function', function: { name: 'w' } },
      reasoning_effort: 'low',
    });
    expect(body(named)).not.toHaveProperty('thinking');
    const warm = body(hub({ temperature: 0.3, reasoning_effort: 'low' }));
    expect(warm).not.toHaveProperty('temperature');
    expect(warm.thinking).toEqual({ type: 'enabled', budget_tokens: 2048 });
    expect(body(hub({ temperature: 1, reasoning_effort: 'low' })).temperature).toBe(1);
    const log = new AdjustmentLog();
    anthropicProvider.fromHub(
      hub({ tools, tool_choice: 'required', reasoning_effort: 'low', temperature: 0.2 }),
      'c',
      log,
    );
    expect(log.items).toEqual([
      expect.stringMatching(/^dropped reasoning_effort/),
      expect.stringContaining('cache_control'),
    ]);
    expect(() =>
      anthropicProvider.fromHub(
        hub({ temperature: 0.3, reasoning_effort: 'low' }),
        'c',
        new AdjustmentLog(true),
      ),
    ).toThrow(GatewayError);
  });

  it('passes the hub thinking setting through, ahead of reasoning_effort', () => {
    const out = body(
      hub({ thinking: { type: 'enabled', budget_tokens: 2000 }, reasoning_effort: 'high', max_tokens: 5000 }),
    );
    expect(out.thinking).toEqual({ type: 'enabled', budget_tokens: 2000 });
  });

  it('maps every tool_choice, and parallel_tool_calls false onto it', () => {
    const tools = [{ type: 'function' as const, function: { name: 'f', parameters: { type: 'object' } } }];
    expect(body(hub({ tools, tool_choice: 'auto' })).tool_choice).toEqual({ type: 'auto' });
    expect(body(hub({ tools, tool_choice: 'none' })).tool_choice).toEqual({ type: 'none' });
    expect(
      body(hub({ tools, tool_choice: { type: 'function', function: { name: 'f' } } })).tool_choice,
    ).toEqual({
      type: 'tool',
      name: 'f',
    });
    expect(body(hub({ tools, parallel_tool_calls: false })).tool_choice).toEqual({
      type: 'auto',
      disable_parallel_tool_use: true,
    });
    expect(body(hub({ tools })).tool_choice).toBeUndefined();
    expect(body(hub({ tool_choice: 'none' })).tool_choice).toBeUndefined();
    rejects(hub({ tool_choice: 'required' }), 'tool_choice');
  });

  it('gives a tool without parameters the empty object schema and keeps strict', () => {
    const out = body(hub({ tools: [{ type: 'function', function: { name: 'now', strict: true } }] }));
    expect(out.tools).toEqual([
      {
        name: 'now',
        input_schema: { type: 'object', properties: {} },
        strict: true,
        cache_control: { type: 'ephemeral' },
      },
    ]);
  });

  it('maps a json_schema response_format to output_config.format and rejects json_object', () => {
    const schema = { type: 'object', properties: { a: { type: 'string' } } };
    const out = body(hub({ response_format: { type: 'json_schema', json_schema: { name: 'x', schema } } }));
    expect(out.output_config).toEqual({ format: { type: 'json_schema', schema } });
    expect(body(hub({ response_format: { type: 'text' } })).output_config).toBeUndefined();
    rejects(hub({ response_format: { type: 'json_object' } }), 'response_format.type (json_object)');
  });

  it('rejects what Anthropic cannot express, naming the field', () => {
    rejects(hub({ temperature: 1.5 }), 'temperature');
    rejects(hub({ n: 2 }), 'n');
    rejects(hub({ seed: 7 }), 'seed');
    rejects(hub({ presence_penalty: 0.5 }), 'presence_penalty');
    rejects(hub({ frequency_penalty: -1 }), 'frequency_penalty');
    rejects(hub({ logprobs: true }), 'logprobs');
    rejects(hub({ logit_bias: { '50256': -100 } }), 'logit_bias');
    rejects(hub({ functions: [{ name: 'f' }] }), 'functions');
    rejects(hub({ messages: [{ role: 'user', content: 'x', name: 'alice' }] }), 'messages[0].name');
    rejects(
      hub({
        messages: [
          { role: 'user', content: [{ type: 'image_url', image_url: { url: 'data:image/bmp;base64,AA' } }] },
        ],
      }),
      'messages[0].content[0].image_url.url',
    );
    rejects(
      hub({
        messages: [
          {
            role: 'assistant',
            content: null,
            tool_calls: [{ id: 't', type: 'function', function: { name: 'f', arguments: '{"a":' } }],
          },
        ],
      }),
      'messages[0].tool_calls[0].function.arguments',
    );
    rejects(hub({ messages: [{ role: 'tool', content: 'x' }] }), 'messages[0].tool_call_id');
  });

  it('accepts default values of inexpressible fields and ignores non-semantic ones', () => {
    const out = body(
      hub({
        n: 1,
        logprobs: false,
        presence_penalty: 0,
        frequency_penalty: 0,
        top_logprobs: 0,
        store: true,
        metadata: { a: 'b' },
      }),
    );
    expect(Object.keys(out).sort()).toEqual(['max_tokens', 'messages', 'model']);
  });

  it('drops unsigned reasoning and empty assistant turns, and merges consecutive user turns', () => {
    const out = body(
      hub({
        messages: [
          { role: 'user', content: 'a' },
          { role: 'user', content: [{ type: 'text', text: 'b' }] },
          { role: 'assistant', content: 'c', reasoning_content: 'unsigned' },
          { role: 'assistant', content: null },
        ],
      }),
    );
    expect(out.messages).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'a' },
          { type: 'text', text: 'b' },
        ],
      },
      { role: 'assistant', content: [{ type: 'text', text: 'c', cache_control: { type: 'ephemeral' } }] },
    ]);
  });
});

describe('anthropicProvider.toHub', () => {
  it('translates a message with thinking, text and a tool call (golden)', () => {
    expect(anthropicProvider.toHub(json('provider-message.in.json'))).toEqual(
      json('provider-message.out.json'),
    );
  });

  it('maps every stop reason', () => {
    const finish = (stop_reason: string | null): unknown =>
      anthropicProvider.toHub({
        id: 'msg_1',
        type: 'message',
        model: 'm',
        content: [{ type: 'text', text: 'x' }],
        stop_reason,
        usage: { input_tokens: 1, output_tokens: 1 },
      }).choices[0]!.finish_reason;
    expect(finish('end_turn')).toBe('stop');
    expect(finish('stop_sequence')).toBe('stop');
    expect(finish('max_tokens')).toBe('length');
    expect(finish('model_context_window_exceeded')).toBe('length');
    expect(finish('pause_turn')).toBe('length');
    expect(finish('tool_use')).toBe('tool_calls');
    expect(finish('refusal')).toBe('content_filter');
  });

  it('rejects a malformed upstream body as upstream_error', () => {
    for (const bad of [null, { type: 'error' }, { type: 'message', content: 'x' }]) {
      expect(() => anthropicProvider.toHub(bad)).toThrow(expect.objectContaining({ code: 'upstream_error' }));
    }
  });

  it('reads the message of an Anthropic error body', () => {
    const err = { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } };
    expect(anthropicProvider.errorMessage(err)).toBe('Overloaded');
    expect(anthropicProvider.errorMessage({ error: 'x' })).toBeNull();
  });
});

describe('anthropicProvider.streamToHub', () => {
  const run = (text: string): ChatChunk[] => {
    const t = anthropicProvider.streamToHub();
    return [...sseEvents(text).flatMap((e) => t.push(e)), ...t.end()];
  };

  it('translates thinking, text and parallel tool calls event by event (golden)', () => {
    expect(run(fixture('provider-stream.sse'))).toEqual(json('provider-stream.events.json'));
  });

  it('turns an error event into an upstream_error carrying its message', () => {
    const t = anthropicProvider.streamToHub();
    t.push({
      event: 'message_start',
      data: '{"type":"message_start","message":{"id":"m","usage":{"input_tokens":1}}}',
    });
    expect(() =>
      t.push({
        event: 'error',
        data: '{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}',
      }),
    ).toThrow(expect.objectContaining({ code: 'upstream_error', message: 'Overloaded' }));
  });

  it('fails a stream cut off before message_stop', () => {
    const t = anthropicProvider.streamToHub();
    t.push({
      event: 'message_start',
      data: '{"type":"message_start","message":{"id":"m","usage":{"input_tokens":1}}}',
    });
    expect(() => t.end()).toThrow(expect.objectContaining({ code: 'upstream_error' }));
  });

  it('takes input counts repeated in message_delta over message_start', () => {
    const chunks = run(
      [
        'event: message_start\ndata: {"type":"message_start","message":{"id":"m","model":"c","usage":{"input_tokens":0,"output_tokens":1}}}\n\n',
        'event: message_delta\ndata: {"type":"message_delta","delta":{"stop_reason":"max_tokens"},"usage":{"input_tokens":10,"cache_read_input_tokens":5,"output_tokens":7}}\n\n',
        'event: message_stop\ndata: {"type":"message_stop"}\n\n',
      ].join(''),
    );
    expect(chunks.map((c) => c.choices[0]?.finish_reason ?? null)).toEqual([null, 'length', null]);
    expect(chunks[2]!.usage).toEqual({
      prompt_tokens: 15,
      completion_tokens: 7,
      total_tokens: 22,
      prompt_tokens_details: { cached_tokens: 5 },
    });
  });
});
