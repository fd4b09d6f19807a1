import { readFileSync } from 'node:fs';
import { describe, expect, it } from '@jest/globals';
import { GatewayError, SseEventSplitter, sseData } from '#libs/protocol';
import { type ChatRequest } from '../src/chat.js';
import { type ClientContext } from '../src/translation.js';
import { type JsonObject } from '../src/types.js';
import { chatClient } from '../openai/index.js';
import { perplexityProvider } from './index.js';

const fixture = (name: string): string =>
  readFileSync(new URL(`./fixtures/${name}`, import.meta.url), 'utf8');
const ctx = (includeUsage: boolean): ClientContext => ({
  requestId: 'r',
  model: 'sonar',
  created: 1,
  includeUsage,
  request: {},
});
const param = (fn: () => unknown): unknown => {
  try {
    fn();
  } catch (err) {
    if (err instanceof GatewayError) return err.details.param;
    throw err;
  }
  throw new Error('expected a GatewayError');
};

const searchExtras = {
  search_domain_filter: ['nasa.gov', '-reddit.com'],
  search_recency_filter: 'month',
  return_images: true,
  return_related_questions: true,
  web_search_options: { search_context_size: 'high' },
};

describe('perplexityProvider', () => {
  it('sends Sonar request extras untouched, without stream_options (usage comes on every chunk)', () => {
    const hub = {
      model: 'sonar-pro',
      messages: [{ role: 'user', content: 'Artemis?' }],
      stream: true,
      max_completion_tokens: 500,
      ...searchExtras,
    } as ChatRequest;
    const { path, body } = perplexityProvider.fromHub(hub, 'sonar-pro');
    expect(path).toBe('/chat/completions');
    expect(body).toEqual({
      model: 'sonar-pro',
      messages: [{ role: 'user', content: 'Artemis?' }],
      stream: true,
      max_tokens: 500,
      ...searchExtras,
    });
  });

  it('carries a chat client request extras through the hub path as well', () => {
    const hub = chatClient.toHub({
      model: 'sonar',
      messages: [{ role: 'user', content: 'x' }],
      search_domain_filter: ['nasa.gov'],
      return_images: true,
    });
    expect(perplexityProvider.fromHub(hub, 'sonar').body).toMatchObject({
      search_domain_filter: ['nasa.gov'],
      return_images: true,
    });
  });

  it('joins same-role turns and turns developer into system, as Sonar needs alternating turns', () => {
    const hub: ChatRequest = {
      model: 'sonar',
      messages: [
        { role: 'developer', content: 'Cite sources.' },
        { role: 'user', content: 'First question.' },
        { role: 'user', content: [{ type: 'image_url', image_url: { url: 'https://x.example/a.png' } }] },
      ],
    };
    expect(perplexityProvider.fromHub(hub, 'sonar').body.messages).toEqual([
      { role: 'system', content: 'Cite sources.' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'First question.' },
          { type: 'image_url', image_url: { url: 'https://x.example/a.png' } },
        ],
      },
    ]);
  });

  it('refuses tools and tool histories with a 400, since Sonar has no tool calling', () => {
    const tool = { type: 'function' as const, function: { name: 'f' } };
    expect(
      param(() => perplexityProvider.fromHub({ model: 'm', messages: [], tools: [tool] }, 'sonar')),
    ).toBe('tools');
    const history: ChatRequest = {
      model: 'm',
      messages: [
        { role: 'user', content: 'x' },
        { role: 'tool', content: 'r', tool_call_id: 'c' },
      ],
    };
    expect(param(() => perplexityProvider.fromHub(history, 'sonar'))).toBe('messages[1]');
  });

  it('gives a chat client the completion with citations, search results, questions and images untouched', () => {
    const body = JSON.parse(fixture('perplexity-completion.out.json')) as JsonObject;
    const hub = perplexityProvider.toHub(body);
    expect(hub.usage).toMatchObject({ prompt_tokens: 14, completion_tokens: 70 });
    expect(chatClient.fromHub(hub, ctx(false))).toEqual(body);
  });

  it('streams citations and search results on every chunk to a chat client and one exact usage chunk', () => {
    const upstream = perplexityProvider.streamToHub();
    const client = chatClient.streamFromHub(ctx(true));
    const events = new SseEventSplitter().push(new TextEncoder().encode(fixture('perplexity-stream.sse')));
    const hub = [
      ...events.flatMap((e) => upstream.push({ event: null, data: sseData(e)! })),
      ...upstream.end(),
    ];
    const frames = [...hub.flatMap((c) => client.push(c)), ...client.end()];
    const chunks = frames.slice(0, -1).map((f) => JSON.parse(f.data) as JsonObject);
    expect(
      chunks.slice(0, 3).map((c) => [c.citations, (c.search_results as unknown[]).length, c.usage]),
    ).toEqual([
      [['https://www.nasa.gov/artemis'], 1, null],
      [['https://www.nasa.gov/artemis'], 1, null],
      [['https://www.nasa.gov/artemis'], 1, null],
    ]);
    expect(chunks[3]).toMatchObject({
      choices: [],
      usage: { prompt_tokens: 9, completion_tokens: 5, total_tokens: 14 },
    });
    expect(frames.at(-1)).toEqual({ data: '[DONE]' });
  });
});
