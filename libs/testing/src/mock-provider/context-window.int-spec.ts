import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { startMockProvider, type MockProvider } from '../../index.js';

/** `contextWindow`: a prompt longer than it gets each vendor's own refusal; a shorter one its answer. */
let mock: MockProvider;
let openai: OpenAI;
let anthropic: Anthropic;

/** 40 tokens at 4 characters a token: over a window of 10, under one of 100. */
const LONG = 'x'.repeat(160);

beforeAll(async () => {
  mock = await startMockProvider({ port: 0 });
  openai = new OpenAI({ baseURL: `${mock.url}/v1`, apiKey: 'x', maxRetries: 0 });
  anthropic = new Anthropic({ baseURL: mock.url, apiKey: 'x', maxRetries: 0 });
});
afterAll(() => mock.close());
beforeEach(() => {
  mock.reset();
  mock.setBehaviour({ contextWindow: 10 });
});

const errorOf = (p: Promise<unknown>): Promise<unknown> => p.then(() => null).catch((e: unknown) => e);

describe('a prompt longer than the context window', () => {
  it('Chat Completions: 400 context_length_exceeded, stream or not', async () => {
    for (const stream of [false, true]) {
      const err = await errorOf(
        openai.chat.completions.create({ model: 'm', stream, messages: [{ role: 'user', content: LONG }] }),
      );
      expect(err).toBeInstanceOf(OpenAI.BadRequestError);
      expect((err as InstanceType<typeof OpenAI.BadRequestError>).error).toEqual({
        message:
          "This model's maximum context length is 10 tokens. However, your messages resulted in 40 tokens. Please reduce the length of the messages.",
        type: 'invalid_request_error',
        param: 'messages',
        code: 'context_length_exceeded',
      });
    }
  });

  it('Completions: the prompt and the completion budget together', async () => {
    const err = await errorOf(
      openai.completions.create({ model: 'm', prompt: 'x'.repeat(20), max_tokens: 6 }),
    );
    expect((err as InstanceType<typeof OpenAI.BadRequestError>).error).toMatchObject({
      code: 'context_length_exceeded',
      message: expect.stringContaining('you requested 11 tokens (5 in your prompt; 6 for the completion)'),
    });
  });

  it('Responses: a 400 without stream, response.failed in-band with one', async () => {
    const err = await errorOf(openai.responses.create({ model: 'm', input: LONG }));
    expect((err as InstanceType<typeof OpenAI.BadRequestError>).error).toMatchObject({
      param: 'input',
      code: 'context_length_exceeded',
    });
    const stream = await openai.responses.create({ model: 'm', input: LONG, stream: true });
    const types: string[] = [];
    let failed: unknown = null;
    for await (const event of stream) {
      types.push(event.type);
      if (event.type === 'response.failed') failed = event.response;
    }
    expect(types).toEqual(['response.created', 'response.in_progress', 'response.failed']);
    expect(failed).toMatchObject({
      status: 'failed',
      error: {
        code: 'context_length_exceeded',
        message: expect.stringContaining('exceeds the context window'),
      },
    });
  });

  it('Messages: 400 prompt is too long, stream or not', async () => {
    for (const stream of [false, true]) {
      const err = await errorOf(
        anthropic.messages.create({
          model: 'm',
          max_tokens: 5,
          stream,
          messages: [{ role: 'user', content: LONG }],
        }),
      );
      expect(err).toBeInstanceOf(Anthropic.BadRequestError);
      expect((err as InstanceType<typeof Anthropic.BadRequestError>).error).toMatchObject({
        type: 'error',
        error: { type: 'invalid_request_error', message: 'prompt is too long: 40 tokens > 10 maximum' },
      });
    }
  });

  it('Gemini: 400 INVALID_ARGUMENT with the input token count, stream or not', async () => {
    for (const method of ['generateContent', 'streamGenerateContent?alt=sse']) {
      const res = await fetch(`${mock.url}/v1beta/models/gemini-2.5-flash:${method}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text: LONG }] }] }),
      });
      expect(res.status).toBe(400);
      expect(await res.json()).toEqual({
        error: {
          code: 400,
          message: 'The input token count (40) exceeds the maximum number of tokens allowed (10).',
          status: 'INVALID_ARGUMENT',
        },
      });
    }
  });

  it('answers a prompt that fits, and any length once the window is unset', async () => {
    mock.setBehaviour({ contextWindow: 100 });
    const fits = await openai.chat.completions.create({
      model: 'm',
      messages: [{ role: 'user', content: LONG }],
    });
    expect(fits.choices[0]?.finish_reason).toBe('stop');
    mock.setBehaviour({ contextWindow: null });
    const any = await openai.chat.completions.create({
      model: 'm',
      messages: [{ role: 'user', content: LONG.repeat(100) }],
    });
    expect(any.choices[0]?.finish_reason).toBe('stop');
  });
});
