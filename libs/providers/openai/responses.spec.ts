import { describe, expect, it } from '@jest/globals';
import OpenAI from 'openai';
import { GatewayError } from '#libs/protocol';
import { type ChatChunk, type ChatCompletion } from '../src/chat.js';
import { type ClientContext, type SseFrame } from '../src/translation.js';
import { type JsonObject } from '../src/types.js';
import { responsesClient } from './index.js';
import { fixtureJson, sseText } from './spec-support.js';

const ctx = (request: JsonObject): ClientContext => ({
  requestId: 'req01',
  model: 'claude-sonnet-4',
  created: 1751377200,
  includeUsage: true,
  request,
});

const paramOf = (fn: () => unknown): unknown => {
  try {
    fn();
  } catch (err) {
    if (err instanceof GatewayError && err.code === 'invalid_request') return err.details.param;
    throw err;
  }
  throw new Error('expected a 400');
};

const run = (chunks: readonly ChatChunk[], request: JsonObject): SseFrame[] => {
  const s = responsesClient.streamFromHub(ctx(request));
  return [...chunks.flatMap((c) => s.push(c)), ...s.end()];
};

const parsed = (frames: readonly SseFrame[]) =>
  frames.map((f) => ({ event: f.event, data: JSON.parse(f.data) as JsonObject }));

/** An OpenAI SDK client whose every request is answered with the given body. */
const sdkAnswering = (body: string, contentType: string): OpenAI =>
  new OpenAI({
    apiKey: 'sk-test',
    baseURL: 'http://gateway.test/v1',
    fetch: () => Promise.resolve(new Response(body, { headers: { 'content-type': contentType } })),
  });

const textChunks = (parts: readonly string[], finish: 'stop' | 'length'): ChatChunk[] => [
  ...parts.map((content) => ({
    id: 'c',
    object: 'chat.completion.chunk' as const,
    created: 1,
    model: 'm',
    choices: [{ index: 0, delta: { content }, finish_reason: null }],
  })),
  {
    id: 'c',
    object: 'chat.completion.chunk',
    created: 1,
    model: 'm',
    choices: [{ index: 0, delta: {}, finish_reason: finish }],
  },
  {
    id: 'c',
    object: 'chat.completion.chunk',
    created: 1,
    model: 'm',
    choices: [],
    usage: { prompt_tokens: 5, completion_tokens: 3, total_tokens: 8 },
  },
];

describe('responsesClient.toHub', () => {
  it('translates instructions, images, reasoning, parallel calls, their outputs, tools and format', () => {
    expect(responsesClient.toHub(fixtureJson('responses-client-request.in.json'))).toEqual(
      fixtureJson('responses-client-request.out.json'),
    );
  });

  it('takes a plain string input as one user message', () => {
    expect(responsesClient.toHub({ model: 'm', input: 'Hi' })).toEqual({
      model: 'm',
      messages: [{ role: 'user', content: 'Hi' }],
    });
  });

  it('leaves out tool_choice, parallel_tool_calls and an empty tools list when no tool remains', () => {
    // Chat Completions refuses all three without tools; the Responses API takes them (Codex sends them).
    const webOnly = [{ type: 'file_search', vector_store_ids: ['vs_1'] }];
    for (const tools of [undefined, [], webOnly]) {
      const hub = responsesClient.toHub({
        model: 'm',
        input: 'x',
        tools,
        tool_choice: 'auto',
        parallel_tool_calls: true,
      });
      expect(hub).toEqual({ model: 'm', messages: [{ role: 'user', content: 'x' }] });
    }
    expect(
      paramOf(() =>
        responsesClient.toHub({ model: 'm', input: 'x', tools: webOnly, tool_choice: 'required' }),
      ),
    ).toBe('tool_choice');
  });

  it('puts the first web_search tool on the hub for the provider to carry or drop', () => {
    const hub = responsesClient.toHub({
      model: 'm',
      input: 'x',
      tools: [
        {
          type: 'web_search',
          search_context_size: 'low',
          filters: { allowed_domains: ['example.com'] },
          user_location: { type: 'approximate', city: 'Paris', country: 'FR' },
          external_web_access: true,
        },
        { type: 'web_search_preview' },
      ],
      tool_choice: 'auto',
    });
    // The search alone leaves no function tool: tool_choice goes as with any tool list left empty.
    expect(hub).toEqual({
      model: 'm',
      messages: [{ role: 'user', content: 'x' }],
      web_search: {
        param: 'tools[0]',
        kind: 'web_search',
        search_context_size: 'low',
        allowed_domains: ['example.com'],
        user_location: { city: 'Paris', country: 'FR' },
        other_options: ['external_web_access'],
      },
    });
    const preview = responsesClient.toHub({
      model: 'm',
      input: 'x',
      tools: [{ type: 'web_search_preview' }],
    });
    expect(preview.web_search).toEqual({ param: 'tools[0]', kind: 'web_search_preview' });
  });

  it.each([
    [{ previous_response_id: 'resp_1' }, 'previous_response_id'],
    [{ conversation: 'conv_1' }, 'conversation'],
    [{ background: true }, 'background'],
    [{ tool_choice: { type: 'file_search' } }, 'tool_choice'],
    [{ input: [{ type: 'item_reference', id: 'msg_1' }] }, 'input[0].type'],
    [
      { input: [{ role: 'user', content: [{ type: 'input_file', file_id: 'f' }] }] },
      'input[0].content[0].type',
    ],
    [
      { input: [{ role: 'user', content: [{ type: 'input_image', file_id: 'f' }] }] },
      'input[0].content[0].file_id',
    ],
    [{ input: [{ type: 'function_call', name: 'f', arguments: '{}' }] }, 'input[0].call_id'],
    [{ input: 42 }, 'input'],
    [{ max_output_tokens: -1 }, 'max_output_tokens'],
    [{ text: { format: { type: 'yaml' } } }, 'text.format.type'],
  ])('refuses %j with a 400 naming %s', (extra, param) => {
    expect(paramOf(() => responsesClient.toHub({ model: 'm', input: 'x', ...extra }))).toBe(param);
  });
});

describe('responsesClient.fromHub', () => {
  it('builds the response: reasoning (thinking kept), message, function calls, echoed settings, usage', () => {
    const completion = fixtureJson<ChatCompletion>('responses-completion.in.json');
    const out = responsesClient.fromHub(completion, ctx(fixtureJson('responses-completion.request.json')));
    expect(out).toEqual(fixtureJson('responses-completion.out.json'));
  });

  it('gives the thinking back to the hub when the client sends the output items back', () => {
    const out = fixtureJson('responses-completion.out.json');
    const hub = responsesClient.toHub({ model: 'm', input: out.output as unknown[] });
    const completion = fixtureJson<ChatCompletion>('responses-completion.in.json');
    expect(hub.messages[0]).toEqual({ ...completion.choices[0]!.message });
  });

  it('reports a length stop as incomplete with reason max_output_tokens', () => {
    const completion: ChatCompletion = {
      id: 'x',
      object: 'chat.completion',
      created: 1,
      model: 'm',
      choices: [{ index: 0, message: { role: 'assistant', content: 'Once upon' }, finish_reason: 'length' }],
    };
    const out = responsesClient.fromHub(completion, ctx({ max_output_tokens: 2 }));
    expect(out).toMatchObject({
      status: 'incomplete',
      incomplete_details: { reason: 'max_output_tokens' },
      usage: null,
    });
    expect((out.output as JsonObject[])[0]).toMatchObject({ status: 'incomplete' });
  });

  it('is read by the OpenAI SDK, output_text included', async () => {
    const completion = fixtureJson<ChatCompletion>('responses-completion.in.json');
    const body = JSON.stringify(responsesClient.fromHub(completion, ctx({})));
    const response = await sdkAnswering(body, 'application/json').responses.create({
      model: 'claude-sonnet-4',
      input: 'x',
    });
    expect(response.output_text).toBe('Let me check both cities.');
    expect(response.usage?.input_tokens_details.cached_tokens).toBe(256);
  });
});

describe('responsesClient.streamFromHub', () => {
  it('emits the exact typed event sequence for reasoning, text and two streamed tool calls', () => {
    const frames = run(
      fixtureJson<ChatChunk[]>('responses-stream-tools.in.json'),
      fixtureJson('responses-stream-tools.request.json'),
    );
    expect(parsed(frames)).toEqual(fixtureJson('responses-stream-tools.events.json'));
  });

  it('ends a length-stopped stream with response.incomplete', () => {
    const events = parsed(run(textChunks(['Once', ' upon'], 'length'), {}));
    const last = events.at(-1)!;
    expect(last.event).toBe('response.incomplete');
    expect(last.data.response).toMatchObject({
      status: 'incomplete',
      incomplete_details: { reason: 'max_output_tokens' },
    });
  });

  it('fails with response.failed carrying the error and the output so far', () => {
    const s = responsesClient.streamFromHub(ctx({}));
    s.push(textChunks(['Hel'], 'stop')[0]!);
    const events = parsed(s.fail({ type: 'api_error', message: 'upstream reset' }));
    expect(events.map((e) => e.event)).toEqual([
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.failed',
    ]);
    expect(events.at(-1)!.data.response).toMatchObject({
      status: 'failed',
      error: { code: 'server_error', message: 'upstream reset' },
    });
  });

  it('is accepted by the OpenAI SDK stream helper: finalResponse() holds the text, calls and usage', async () => {
    const text = sseText(
      run(
        fixtureJson<ChatChunk[]>('responses-stream-tools.in.json'),
        fixtureJson('responses-stream-tools.request.json'),
      ),
    );
    const stream = sdkAnswering(text, 'text/event-stream').responses.stream({
      model: 'claude-sonnet-4',
      input: 'x',
    });
    const deltas: string[] = [];
    stream.on('response.output_text.delta', (e) => deltas.push(e.delta));
    const final = await stream.finalResponse();
    expect(deltas.join('')).toBe('Let me check both cities.');
    expect(final.output_text).toBe('Let me check both cities.');
    expect(final.output.filter((o) => o.type === 'function_call').map((o) => o.arguments)).toEqual([
      '{"city": "Paris"}',
      '{"city": "Lyon"}',
    ]);
    expect(final.usage?.total_tokens).toBe(508);
  });
});
