import { describe, expect, it } from '@jest/globals';
import OpenAI from 'openai';
import { GatewayError } from '#libs/protocol';
import { type ChatCompletion } from '../src/chat.js';
import { type ClientContext } from '../src/translation.js';
import { completionsClient, openAIChatProvider } from './index.js';
import { fixtureJson, fixtureText, sseEvents, sseText } from './spec-support.js';

const ctx = (includeUsage: boolean): ClientContext => ({
  requestId: '7iA7iJjj8V2zOkCGvWF2hAkDWBQZe',
  model: 'gpt-3.5-turbo-instruct',
  created: 1690759702,
  includeUsage,
  request: {},
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

const streamFrom = (includeUsage: boolean): string => {
  const upstream = openAIChatProvider.streamToHub();
  const client = completionsClient.streamFromHub(ctx(includeUsage));
  const hub = [
    ...sseEvents(fixtureText('completions-from-chat.sse')).flatMap((e) => upstream.push(e)),
    ...upstream.end(),
  ];
  return sseText([...hub.flatMap((c) => client.push(c)), ...client.end()]);
};

describe('completionsClient', () => {
  it('turns a prompt into one user message, keeping the shared sampling fields', () => {
    expect(completionsClient.toHub(fixtureJson('completions-client-request.in.json'))).toEqual(
      fixtureJson('completions-client-request.out.json'),
    );
  });

  it('applies the endpoint default of 16 tokens when max_tokens is absent, as OpenAI does', () => {
    expect(completionsClient.toHub({ model: 'm', prompt: 'x' }).max_tokens).toBe(16);
  });

  it.each([
    [{ prompt: [1, 2, 3] }, 'prompt'],
    [{ prompt: ['a', 'b'] }, 'prompt'],
    [{ prompt: 42 }, 'prompt'],
    [{ n: 2 }, 'n'],
    [{ best_of: 3 }, 'best_of'],
    [{ echo: true }, 'echo'],
    [{ logprobs: 5 }, 'logprobs'],
    [{ suffix: 'end' }, 'suffix'],
    [{ logit_bias: { '50256': -100 } }, 'logit_bias'],
    [{ max_tokens: 1.5 }, 'max_tokens'],
  ])('refuses %j with a 400 naming %s', (extra, param) => {
    expect(paramOf(() => completionsClient.toHub({ model: 'm', prompt: 'x', ...extra }))).toBe(param);
  });

  it('writes a text_completion object with usage, mapping a tool stop to stop', async () => {
    const completion: ChatCompletion = {
      id: 'msg_1',
      object: 'chat.completion',
      created: 1690759702,
      model: 'claude-haiku-4',
      choices: [
        { index: 0, message: { role: 'assistant', content: 'This is a test.' }, finish_reason: 'stop' },
      ],
      usage: { prompt_tokens: 5, completion_tokens: 5, total_tokens: 10 },
    };
    const out = completionsClient.fromHub(completion, ctx(false));
    expect(out).toEqual({
      id: 'cmpl-7iA7iJjj8V2zOkCGvWF2hAkDWBQZe',
      object: 'text_completion',
      created: 1690759702,
      model: 'claude-haiku-4',
      choices: [{ text: 'This is a test.', index: 0, logprobs: null, finish_reason: 'stop' }],
      usage: { prompt_tokens: 5, completion_tokens: 5, total_tokens: 10 },
    });
    const sdk = new OpenAI({
      apiKey: 'k',
      baseURL: 'http://gw.test/v1',
      fetch: () => Promise.resolve(Response.json(out)),
    });
    expect((await sdk.completions.create({ model: 'm', prompt: 'x' })).choices[0]?.text).toBe(
      'This is a test.',
    );
  });

  it("stamps the edge's clock and the model asked where the hub has neither (Bedrock's Converse)", () => {
    const completion: ChatCompletion = {
      id: 'bedrock-1',
      object: 'chat.completion',
      created: 0,
      model: '',
      choices: [{ index: 0, message: { role: 'assistant', content: 'Hi.' }, finish_reason: 'stop' }],
    };
    expect(completionsClient.fromHub(completion, ctx(false))).toMatchObject({
      created: 1690759702,
      model: 'gpt-3.5-turbo-instruct',
    });
    const client = completionsClient.streamFromHub(ctx(true));
    const frames = [
      ...client.push({
        id: '',
        object: 'chat.completion.chunk',
        created: 0,
        model: '',
        choices: completion.choices.map((c) => ({
          index: 0,
          delta: { content: 'Hi.' },
          finish_reason: c.finish_reason,
        })),
      }),
      ...client.push({
        id: '',
        object: 'chat.completion.chunk',
        created: 0,
        model: '',
        choices: [],
        usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
      }),
    ];
    expect(frames).toHaveLength(2);
    for (const f of frames)
      expect(JSON.parse(f.data)).toMatchObject({ created: 1690759702, model: 'gpt-3.5-turbo-instruct' });
  });

  it('streams what OpenAI streams, byte for byte: text chunks, the usage chunk, [DONE]', () => {
    expect(streamFrom(true)).toBe(fixtureText('completions-stream-usage.sse'));
  });

  it('streams no usage member and no usage chunk when the client did not ask', () => {
    const text = streamFrom(false);
    expect(text).not.toContain('usage');
    expect(text.endsWith('data: [DONE]\n\n')).toBe(true);
    expect(text.split('\n\n').filter(Boolean)).toHaveLength(4);
  });
});
