import { describe, expect, it } from '@jest/globals';
import OpenAI from 'openai';
import { GatewayError } from '#libs/protocol';
import { type ChatChunk, type ChatRequest } from '../src/chat.js';
import { type ClientContext } from '../src/translation.js';
import { chatClient, openAIChatProvider } from './index.js';
import { fixtureJson, fixtureText, sseEvents, sseText } from './spec-support.js';

const ctx = (includeUsage: boolean): ClientContext => ({
  requestId: 'req_1',
  model: 'gpt-4o',
  created: 1751377200,
  includeUsage,
  request: {},
});

const rejection = (fn: () => unknown): { code: string; status: number; param: unknown } => {
  try {
    fn();
  } catch (err) {
    if (err instanceof GatewayError) return { code: err.code, status: err.status, param: err.details.param };
    throw err;
  }
  throw new Error('expected a GatewayError');
};

const hubStream = (name: string): ChatChunk[] => {
  const t = openAIChatProvider.streamToHub();
  return [...sseEvents(fixtureText(name)).flatMap((e) => t.push(e)), ...t.end()];
};

describe('chatClient.toHub', () => {
  it('keeps a full request (images, parallel tool calls, tool results) and turns refusal parts into text', () => {
    expect(chatClient.toHub(fixtureJson('chat-client-request.in.json'))).toEqual(
      fixtureJson('chat-client-request.out.json'),
    );
  });

  it('keeps vendor request extras for OpenAI-style providers (Perplexity search filters)', () => {
    const hub = chatClient.toHub({ model: 'sonar', messages: [], search_domain_filter: ['nasa.gov'] });
    expect((hub as unknown as Record<string, unknown>).search_domain_filter).toEqual(['nasa.gov']);
  });

  it.each([
    [{ n: 2 }, 'n'],
    [{ functions: [{ name: 'f' }] }, 'functions'],
    [{ logprobs: true }, 'logprobs'],
    [{ modalities: ['text', 'audio'] }, 'modalities'],
    [{ logit_bias: { '50256': -100 } }, 'logit_bias'],
    [{ tools: [{ type: 'custom', custom: { name: 'x' } }] }, 'tools[0].type'],
    [{ tool_choice: { type: 'allowed_tools' } }, 'tool_choice'],
    [{ messages: [{ role: 'user', content: [{ type: 'input_audio' }] }] }, 'messages[0].content[0].type'],
    [{ messages: [{ role: 'function', content: 'x' }] }, 'messages[0].role'],
    [{ messages: 'hello' }, 'messages'],
    [{ temperature: 'hot' }, 'temperature'],
  ])('refuses %j with a 400 naming %s', (extra, param) => {
    const body = { model: 'm', messages: [{ role: 'user', content: 'hi' }], ...extra };
    expect(rejection(() => chatClient.toHub(body))).toEqual({ code: 'invalid_request', status: 400, param });
  });

  it('accepts the defaults a client may send explicitly', () => {
    expect(() =>
      chatClient.toHub({
        model: 'm',
        messages: [],
        n: 1,
        logprobs: false,
        modalities: ['text'],
        logit_bias: {},
      }),
    ).not.toThrow();
  });
});

describe('chatClient out of the hub', () => {
  it('returns a completion unchanged, vendor extras included', () => {
    const completion = { ...fixtureJson('chat-completion.out.json'), citations: ['https://a.example'] };
    expect(chatClient.fromHub(openAIChatProvider.toHub(completion), ctx(false))).toEqual(completion);
  });

  it("stamps the edge's clock where the hub has no timestamp (Anthropic upstreams)", () => {
    const completion = openAIChatProvider.toHub(fixtureJson('chat-completion.out.json'));
    expect(chatClient.fromHub({ ...completion, created: 0 }, ctx(false)).created).toBe(1751377200);
    const [chunk] = hubStream('chat-stream-usage.sse');
    const [frame] = chatClient.streamFromHub(ctx(false)).push({ ...chunk!, created: 0 });
    expect(JSON.parse(frame!.data)).toMatchObject({ created: 1751377200 });
  });

  it("gives an id and the model asked where the hub has neither (Bedrock's Converse), so the SDK keeps the usage", async () => {
    const completion = openAIChatProvider.toHub(fixtureJson('chat-completion.out.json'));
    expect(chatClient.fromHub({ ...completion, id: '', model: '' }, ctx(false))).toMatchObject({
      id: 'chatcmpl-req1',
      model: 'gpt-4o',
    });
    const s = chatClient.streamFromHub(ctx(true));
    const frames = [
      ...hubStream('chat-stream-usage.sse').flatMap((c) => s.push({ ...c, id: '', model: '' })),
      ...s.end(),
    ];
    for (const f of frames.slice(0, -1))
      expect(JSON.parse(f.data)).toMatchObject({ id: 'chatcmpl-req1', model: 'gpt-4o' });
    const sdk = new OpenAI({
      apiKey: 'k',
      baseURL: 'http://gw.test/v1',
      fetch: () =>
        Promise.resolve(new Response(sseText(frames), { headers: { 'content-type': 'text/event-stream' } })),
    });
    const final = await sdk.chat.completions
      .stream({ model: 'gpt-4o', messages: [], stream_options: { include_usage: true } })
      .finalChatCompletion();
    expect(final.usage).toMatchObject({ prompt_tokens: expect.any(Number) });
  });

  it('writes an OpenAI stream back byte for byte when the client asked for usage', () => {
    const s = chatClient.streamFromHub(ctx(true));
    const frames = [...hubStream('chat-stream-usage.sse').flatMap((c) => s.push(c)), ...s.end()];
    expect(sseText(frames)).toBe(fixtureText('chat-stream-usage.sse'));
  });

  it('without include_usage: no usage member at all on chunks, no usage chunk, then [DONE]', () => {
    const s = chatClient.streamFromHub(ctx(false));
    const frames = [...hubStream('chat-stream-usage.sse').flatMap((c) => s.push(c)), ...s.end()];
    expect(frames).toHaveLength(4);
    expect(frames.every((f) => !f.data.includes('usage'))).toBe(true);
    expect(frames.at(-1)).toEqual({ data: '[DONE]' });
  });

  it('fails with the in-stream error event the OpenAI SDK raises as an APIError', () => {
    expect(
      chatClient.streamFromHub(ctx(false)).fail({ type: 'api_error', message: 'upstream broke' }),
    ).toEqual([
      { data: '{"error":{"message":"upstream broke","type":"api_error","param":null,"code":null}}' },
    ]);
  });
});

describe('openAIChatProvider', () => {
  it('builds the upstream body: model swapped, extensions stripped, thinking as effort, stream usage forced', () => {
    const req = fixtureJson<ChatRequest>('chat-provider-request.in.json');
    const upstream = openAIChatProvider.fromHub(req, 'gpt-5-mini-2025-08-07');
    expect(upstream.path).toBe('/chat/completions');
    expect(upstream.headers).toEqual({});
    expect(upstream.body).toEqual(fixtureJson('chat-provider-request.out.json'));
  });

  it('sends no stream_options on a non-stream request and keeps an explicit reasoning effort', () => {
    const req: ChatRequest = {
      model: 'x',
      messages: [],
      stream_options: { include_usage: true },
      reasoning_effort: 'high',
      thinking: { type: 'enabled', budget_tokens: 1024 },
    };
    const { body } = openAIChatProvider.fromHub(req, 'o3');
    expect(body).toEqual({ model: 'o3', messages: [], reasoning_effort: 'high' });
  });

  it('reads a completion, keeping vendor extras and mapping DeepSeek cache hits to cached_tokens', () => {
    const deepseek = {
      id: 'x',
      object: 'chat.completion',
      created: 1,
      model: 'deepseek-reasoner',
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content: 'hi', reasoning_content: 'think' },
          finish_reason: 'stop',
        },
      ],
      usage: {
        prompt_tokens: 10,
        completion_tokens: 5,
        total_tokens: 15,
        prompt_cache_hit_tokens: 8,
        prompt_cache_miss_tokens: 2,
      },
    };
    const hub = openAIChatProvider.toHub(deepseek);
    expect(hub.usage?.prompt_tokens_details?.cached_tokens).toBe(8);
    expect(hub.choices[0]?.message.reasoning_content).toBe('think');
    expect(openAIChatProvider.toHub(fixtureJson('chat-completion.out.json'))).toEqual(
      fixtureJson('chat-completion.out.json'),
    );
  });

  it('refuses a body that is not a completion with upstream_error', () => {
    expect(rejection(() => openAIChatProvider.toHub({ object: 'list' }))).toEqual({
      code: 'upstream_error',
      status: 502,
      param: undefined,
    });
  });

  it('turns a recorded parallel tool-call stream into hub chunks ending with the usage chunk', () => {
    expect(hubStream('chat-provider-stream.sse')).toEqual(fixtureJson('chat-provider-stream.events.json'));
  });

  it('collects usage sent on every chunk (Perplexity) or under x_groq into one closing usage chunk', () => {
    const usage = { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 };
    const chunk = (content: string, finish: string | null, extra: object) =>
      JSON.stringify({
        id: 'c',
        object: 'chat.completion.chunk',
        created: 1,
        model: 'sonar',
        choices: [{ index: 0, delta: { content }, finish_reason: finish }],
        ...extra,
      });
    const t = openAIChatProvider.streamToHub();
    const out = [
      ...t.push({
        event: null,
        data: chunk('a', null, { usage: { ...usage, completion_tokens: 1 }, citations: ['u'] }),
      }),
      ...t.push({ event: null, data: chunk('b', 'stop', { usage, citations: ['u'] }) }),
      ...t.end(),
    ];
    expect(out.map((c) => c.usage)).toEqual([undefined, undefined, usage]);
    expect((out[0] as unknown as { citations: string[] }).citations).toEqual(['u']);
    const groq = openAIChatProvider.streamToHub();
    groq.push({ event: null, data: chunk('a', 'stop', { x_groq: { id: 'req_1', usage } }) });
    expect(groq.push({ event: null, data: '[DONE]' })).toEqual([
      { id: 'c', object: 'chat.completion.chunk', created: 1, model: 'sonar', choices: [], usage },
    ]);
  });

  it('raises an error event or garbage mid-stream as upstream_error', () => {
    const t = openAIChatProvider.streamToHub();
    expect(rejection(() => t.push({ event: null, data: '{"error":{"message":"overloaded"}}' })).code).toBe(
      'upstream_error',
    );
    expect(rejection(() => t.push({ event: null, data: 'not json' })).code).toBe('upstream_error');
  });

  it('finds the message in OpenAI, Ollama and vLLM error bodies', () => {
    expect(
      openAIChatProvider.errorMessage({ error: { message: 'bad key', type: 'invalid_request_error' } }),
    ).toBe('bad key');
    expect(openAIChatProvider.errorMessage({ error: 'model not found' })).toBe('model not found');
    expect(openAIChatProvider.errorMessage({ object: 'error', message: 'too long' })).toBe('too long');
    expect(openAIChatProvider.errorMessage('oops')).toBeNull();
  });
});
