import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import OpenAI from 'openai';
import { startMockProvider } from './server.js';
import type { MockProvider } from './types.js';

/** The mock's provider flavours and the behaviours the conformance matrix relies on. */
let mock: MockProvider;

beforeAll(async () => {
  mock = await startMockProvider();
});

afterAll(async () => {
  await mock?.close();
});

const openaiAt = (path: string) =>
  new OpenAI({ baseURL: `${mock.url}${path}`, apiKey: 'sk-x', maxRetries: 0 });
const claude = () => new Anthropic({ baseURL: mock.url, apiKey: 'sk-x', maxRetries: 0 });
const weather = {
  name: 'get_weather',
  parameters: { type: 'object', properties: { location: { type: 'string' } } },
};
const time = { name: 'get_time', parameters: { type: 'object', properties: { city: { type: 'string' } } } };

describe('Perplexity flavour (root path)', () => {
  it('answers with citations and search results, and usage on every chunk', async () => {
    const client = openaiAt('');
    const done = await client.chat.completions.create({
      model: 'sonar',
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(done).toMatchObject({ citations: [expect.any(String)], search_results: [expect.any(Object)] });
    const stream = await client.chat.completions.create({
      model: 'sonar',
      stream: true,
      messages: [{ role: 'user', content: 'hi' }],
    });
    const chunks = [];
    for await (const c of stream) chunks.push(c);
    expect(chunks.length).toBeGreaterThan(1);
    for (const c of chunks) expect(c.usage?.prompt_tokens).toBeGreaterThan(0);
    expect(chunks.at(-1)!.choices[0]!.finish_reason).toBe('stop');
    expect(chunks.at(-1)!.usage!.completion_tokens).toBe(done.usage!.completion_tokens);
  });
});

describe('OpenAI-compatible flavour (/compat/v1)', () => {
  it('counts cache hits DeepSeek-style and has no Responses API', async () => {
    mock.setBehaviour({ cachedTokens: 1 });
    try {
      const client = openaiAt('/compat/v1');
      const done = await client.chat.completions.create({
        model: 'm',
        messages: [{ role: 'user', content: 'hello there' }],
      });
      expect(done.usage).toMatchObject({ prompt_cache_hit_tokens: 1 });
      expect(done.usage!.prompt_tokens_details).toBeUndefined();
      const err = await client.responses.create({ model: 'm', input: 'x' }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(OpenAI.NotFoundError);
    } finally {
      mock.reset();
    }
  });
});

describe('tools, images, thinking, stream errors', () => {
  it('calls every tool in parallel when the prompt says so, in both wire formats', async () => {
    const chat = await openaiAt('/v1').chat.completions.create({
      model: 'm',
      tools: [weather, time].map((f) => ({ type: 'function' as const, function: f })),
      messages: [{ role: 'user', content: 'parallel weather lookups' }],
    });
    expect(chat.choices[0]!.message.tool_calls).toHaveLength(2);
    const msg = await claude().messages.create({
      model: 'm',
      max_tokens: 100,
      tools: [weather, time].map(({ name, parameters }) => ({
        name,
        input_schema: parameters as Anthropic.Tool.InputSchema,
      })),
      messages: [{ role: 'user', content: 'parallel weather lookups' }],
    });
    expect(msg.content.filter((b) => b.type === 'tool_use')).toHaveLength(2);
  });

  it('echoes the images it received and refuses a malformed Anthropic image source', async () => {
    const data = 'iVBORw0KGgo=';
    const msg = await claude().messages.create({
      model: 'm',
      max_tokens: 100,
      messages: [
        {
          role: 'user',
          content: [
            { type: 'image', source: { type: 'base64', media_type: 'image/png', data } },
            { type: 'text', text: 'see' },
          ],
        },
      ],
    });
    expect(msg.content[0]).toMatchObject({ type: 'text', text: expect.stringContaining('[1 image] see') });
    const bad = await claude()
      .messages.create({
        model: 'm',
        max_tokens: 10,
        messages: [{ role: 'user', content: [{ type: 'image', source: { type: 'file' } }] }],
      } as never)
      .catch((e: unknown) => e);
    expect(bad).toBeInstanceOf(Anthropic.BadRequestError);
  });

  it('answers thinking with a signed thinking block, streamed as thinking and signature deltas', async () => {
    const body = {
      model: 'm',
      max_tokens: 2000,
      thinking: { type: 'enabled' as const, budget_tokens: 1024 },
      messages: [{ role: 'user' as const, content: 'think' }],
    };
    const msg = await claude().messages.create(body);
    expect(msg.content[0]).toMatchObject({
      type: 'thinking',
      thinking: expect.stringContaining('think'),
      signature: expect.any(String),
    });
    const kinds: string[] = [];
    const stream = claude().messages.stream(body);
    stream.on('streamEvent', (e) => {
      if (e.type === 'content_block_delta') kinds.push(e.delta.type);
    });
    const final = await stream.finalMessage();
    expect(kinds).toContain('thinking_delta');
    expect(kinds).toContain('signature_delta');
    expect(final.content[0]).toMatchObject({
      type: 'thinking',
      thinking: (msg.content[0] as Anthropic.ThinkingBlock).thinking,
    });
  });

  it('midStreamError ends streams with the vendor error event', async () => {
    mock.setBehaviour({ midStreamError: true });
    try {
      const a = await claude()
        .messages.stream({ model: 'm', max_tokens: 100, messages: [{ role: 'user', content: 'x' }] })
        .finalMessage()
        .catch((e: unknown) => e);
      expect(a).toBeInstanceOf(Anthropic.APIError);
      const stream = await openaiAt('/v1').chat.completions.create({
        model: 'm',
        stream: true,
        messages: [{ role: 'user', content: 'x' }],
      });
      const b = await (async () => {
        for await (const _ of stream);
      })().catch((e: unknown) => e);
      expect(b).toBeInstanceOf(OpenAI.APIError);
    } finally {
      mock.reset();
    }
  });
});
