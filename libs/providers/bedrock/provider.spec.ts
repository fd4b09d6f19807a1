import { describe, expect, it } from '@jest/globals';
import { GatewayError } from '#libs/protocol';
import { AdjustmentLog } from '../src/adjustments.js';
import { type ChatChunk, type ChatRequest } from '../src/chat.js';
import { converseDecoder, converseProvider, conversePath } from './index.js';
import { concatFrames, eventFrame, exceptionFrame, json, sseEvents } from './spec-support.js';

const CLAUDE = 'us.anthropic.claude-sonnet-4-5-20250929-v1:0';
const hub = (extra: Partial<ChatRequest> & Record<string, unknown> = {}): ChatRequest => ({
  model: 'm',
  messages: [{ role: 'user', content: 'Hi' }],
  ...extra,
});
const body = (req: ChatRequest, model = CLAUDE, adjust?: AdjustmentLog): Record<string, unknown> =>
  converseProvider.fromHub(req, model, adjust).body;

function rejects(req: ChatRequest, param: string, model = CLAUDE, adjust?: AdjustmentLog): void {
  let caught: unknown;
  try {
    body(req, model, adjust);
  } catch (err) {
    caught = err;
  }
  expect(caught).toBeInstanceOf(GatewayError);
  expect((caught as GatewayError).code).toBe('invalid_request');
  expect((caught as GatewayError).details.param).toBe(param);
}

const frames = (): Uint8Array =>
  concatFrames(
    json<{ event: string; payload: unknown }[]>('converse-stream.frames.json').map((f) =>
      eventFrame(f.event, f.payload),
    ),
  );

/** The stream's bytes, read in reads of `size` bytes, through the decoder and the translator. */
function streamChunks(bytes: Uint8Array, size: number): ChatChunk[] {
  const decoder = converseDecoder();
  const t = converseProvider.streamToHub();
  const out: ChatChunk[] = [];
  let sse = '';
  for (let i = 0; i < bytes.length; i += size) sse += decoder.push(bytes.subarray(i, i + size));
  decoder.end();
  for (const e of sseEvents(sse)) out.push(...t.push(e));
  out.push(...t.end());
  return out;
}

describe('converseProvider.fromHub', () => {
  it('translates a multi-turn tool conversation with an image and signed thinking (golden)', () => {
    const adjust = new AdjustmentLog(false);
    const out = converseProvider.fromHub(json<ChatRequest>('converse-request.in.json'), CLAUDE, adjust);
    expect(out.path).toBe('/model/us.anthropic.claude-sonnet-4-5-20250929-v1%3A0/converse-stream');
    expect(out.headers).toEqual({});
    expect(out.body).toEqual(json('converse-request.out.json'));
    expect(adjust.items).toEqual(['dropped user', 'dropped store', 'dropped parallel_tool_calls']);
  });

  it('puts the model in the path URL-encoded: inference profiles and ARNs hold : and /', () => {
    expect(conversePath('global.anthropic.claude-sonnet-4-5-20250929-v1:0', false)).toBe(
      '/model/global.anthropic.claude-sonnet-4-5-20250929-v1%3A0/converse',
    );
    expect(conversePath('arn:aws:bedrock:us-east-1:123456789012:inference-profile/x', true)).toBe(
      '/model/arn%3Aaws%3Abedrock%3Aus-east-1%3A123456789012%3Ainference-profile%2Fx/converse-stream',
    );
  });

  it('sends no inferenceConfig for a bare request, and maps the sampling fields', () => {
    expect(body(hub())).toEqual({ messages: [{ role: 'user', content: [{ text: 'Hi' }] }] });
    expect(body(hub({ max_tokens: 50, temperature: 0.2, stop: 'END' })).inferenceConfig).toEqual({
      maxTokens: 50,
      temperature: 0.2,
      stopSequences: ['END'],
    });
    rejects(hub({ temperature: 1.5 }), 'temperature');
    rejects(hub({ max_tokens: 0 }), 'max_tokens');
  });

  it('carries thinking to Claude only, with room for it in maxTokens', () => {
    const thinking = body(hub({ reasoning_effort: 'low' }));
    expect(thinking.additionalModelRequestFields).toEqual({
      thinking: { type: 'enabled', budget_tokens: 2048 },
    });
    expect(thinking.inferenceConfig).toEqual({ maxTokens: 4096 + 2048 });
    const adjust = new AdjustmentLog(false);
    const nova = body(hub({ reasoning_effort: 'low' }), 'amazon.nova-pro-v1:0', adjust);
    expect(nova).not.toHaveProperty('additionalModelRequestFields');
    expect(adjust.items).toEqual(['dropped reasoning_effort']);
    rejects(
      hub({ reasoning_effort: 'low' }),
      'reasoning_effort (for a model other than Claude)',
      'meta.llama3-70b-instruct-v1:0',
      new AdjustmentLog(true),
    );
    rejects(hub({ max_completion_tokens: 500, reasoning_effort: 'low' }), 'max_completion_tokens');
  });

  it('maps tool_choice; none leaves the tools out unless the history holds tool calls', () => {
    const tools = [{ type: 'function' as const, function: { name: 'w', parameters: { type: 'object' } } }];
    expect(body(hub({ tools, tool_choice: 'required' })).toolConfig).toMatchObject({
      toolChoice: { any: {} },
    });
    expect(
      body(hub({ tools, tool_choice: { type: 'function', function: { name: 'w' } } })).toolConfig,
    ).toMatchObject({
      toolChoice: { tool: { name: 'w' } },
    });
    expect(body(hub({ tools, tool_choice: 'none' }))).not.toHaveProperty('toolConfig');
    const history = hub({
      tools,
      tool_choice: 'none',
      messages: [
        { role: 'user', content: 'Hi' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 't1', type: 'function', function: { name: 'w', arguments: '{}' } }],
        },
        { role: 'tool', tool_call_id: 't1', content: 'ok' },
      ],
    });
    const adjust = new AdjustmentLog(false);
    expect(body(history, CLAUDE, adjust).toolConfig).toEqual({ tools: [expect.anything()] });
    expect(adjust.items).toEqual(['dropped tool_choice']);
    rejects(hub({ tool_choice: 'required' }), 'tool_choice');
  });

  it('refuses what Converse cannot express, naming the field', () => {
    rejects(hub({ n: 2 }), 'n');
    rejects(hub({ seed: 1 }), 'seed');
    rejects(hub({ logit_bias: { '1': 2 } }), 'logit_bias');
    rejects(hub({ response_format: { type: 'json_object' } }), 'response_format.type (json_object)');
    rejects(
      hub({
        messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'https://x/y.png' } }] }],
      }),
      'messages[0].content[0].image_url.url',
    );
    rejects(
      hub({
        messages: [
          { role: 'user', content: [{ type: 'image_url', image_url: { url: 'data:image/tiff;base64,AA' } }] },
        ],
      }),
      'messages[0].content[0].image_url.url',
    );
    rejects(hub({ unknown_field: true }), 'unknown_field');
  });
});

describe('converseProvider.toHub', () => {
  it('reads a Converse answer with reasoning, text and a tool call, cache usage included (golden)', () => {
    const out = converseProvider.toHub(json('converse-response.in.json'));
    expect(out).toEqual(
      Object.assign(json('converse-response.out.json'), {
        id: expect.stringMatching(/^bedrock-[0-9a-f]{8}$/),
      }),
    );
    // Bedrock's own total: input + cache reads + cache writes + output.
    expect(out.usage!.total_tokens).toBe(3220);
  });

  it('maps every stop reason', () => {
    const answer = (stopReason: string): unknown => ({
      output: { message: { role: 'assistant', content: [{ text: 'x' }] } },
      stopReason,
      usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 },
    });
    const finish = (s: string): unknown => converseProvider.toHub(answer(s)).choices[0]!.finish_reason;
    expect(finish('end_turn')).toBe('stop');
    expect(finish('stop_sequence')).toBe('stop');
    expect(finish('max_tokens')).toBe('length');
    expect(finish('model_context_window_exceeded')).toBe('length');
    expect(finish('tool_use')).toBe('tool_calls');
    expect(finish('guardrail_intervened')).toBe('content_filter');
    expect(finish('content_filtered')).toBe('content_filter');
    expect(() => finish('novel')).toThrow(GatewayError);
  });

  it('reads the message of an error body', () => {
    expect(converseProvider.errorMessage({ message: 'Malformed input request' })).toBe(
      'Malformed input request',
    );
    expect(converseProvider.errorMessage({ Message: 'x' })).toBe('x');
    expect(converseProvider.errorMessage('nope')).toBeNull();
  });
});

describe('converseProvider.streamToHub over the event stream', () => {
  it('translates a framed ConverseStream, read whole or byte by byte (golden)', () => {
    const bytes = frames();
    const strip = (chunks: ChatChunk[]): unknown[] =>
      chunks.map(({ choices, usage }) => (usage ? { choices, usage } : { choices }));
    const whole = streamChunks(bytes, bytes.length);
    expect(strip(whole)).toEqual(json('converse-stream.events.json'));
    expect(streamChunks(bytes, 1)).toEqual(whole);
    expect(streamChunks(bytes, 37)).toEqual(whole);
  });

  it('fails on an exception frame with its message, and on a stream cut before metadata', () => {
    const all = json<{ event: string; payload: unknown }[]>('converse-stream.frames.json');
    const cut = concatFrames([
      ...all.slice(0, 3).map((f) => eventFrame(f.event, f.payload)),
      exceptionFrame('throttlingException', 'Too many tokens, please wait before trying again.'),
    ]);
    expect(() => streamChunks(cut, 64)).toThrow('Too many tokens, please wait before trying again.');
    const short = concatFrames(all.slice(0, 5).map((f) => eventFrame(f.event, f.payload)));
    expect(() => streamChunks(short, 64)).toThrow('ended before its metadata');
  });

  it('refuses a frame whose CRC does not match, and a stream that ends inside a frame', () => {
    const bytes = Buffer.from(frames());
    const corrupt = Buffer.from(bytes);
    corrupt[40] = corrupt[40]! ^ 0xff;
    expect(() => converseDecoder().push(corrupt)).toThrow(/corrupt frame/);
    const decoder = converseDecoder();
    decoder.push(bytes.subarray(0, bytes.length - 3));
    expect(() => decoder.end()).toThrow(/inside a frame/);
  });
});
