import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { SseEventSplitter } from '#libs/protocol';
import { startMockProvider, type MockProvider } from '#libs/testing';
import { type ChatChunk, type ChatRequest } from '../src/chat.js';
import { type SseEvent, type UpstreamRequest } from '../src/translation.js';
import { anthropicProvider } from './index.js';

/**
 * The project's mock Anthropic server validates requests the way Anthropic does (unknown
 * fields, roles, tool_result placement): what anthropicProvider sends must pass it, and what it
 * answers must translate back.
 */
let mock: MockProvider;

beforeAll(async () => {
  mock = await startMockProvider({ port: 0 });
});
afterAll(() => mock.close());

async function send(up: UpstreamRequest): Promise<Response> {
  return fetch(`${mock.url}${up.path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': 'x', ...up.headers },
    body: JSON.stringify(up.body),
  });
}

const tools = [
  {
    type: 'function' as const,
    function: {
      name: 'get_weather',
      description: 'Weather by city',
      parameters: { type: 'object', properties: { location: { type: 'string' } }, required: ['location'] },
    },
  },
];

const conversation: ChatRequest = {
  model: 'gpt-4o',
  messages: [
    { role: 'system', content: 'Be brief.' },
    { role: 'user', content: 'Weather in Paris?' },
    {
      role: 'assistant',
      content: null,
      tool_calls: [
        {
          id: 'toolu_1',
          type: 'function',
          function: { name: 'get_weather', arguments: '{"location":"Paris"}' },
        },
      ],
    },
    { role: 'tool', tool_call_id: 'toolu_1', content: '18 C' },
    { role: 'user', content: 'Thanks, and in one word?' },
  ],
  tools,
  temperature: 0.2,
  stop: ['END'],
  user: 'u-1',
};

describe('anthropicProvider against the mock Anthropic server', () => {
  it('sends a multi-turn tool conversation the server accepts and reads its answer', async () => {
    const res = await send(anthropicProvider.fromHub(conversation, 'claude-sonnet-4-6'));
    expect(res.status).toBe(200);
    const completion = anthropicProvider.toHub(await res.json());
    expect(completion.id).toMatch(/^msg_/);
    expect(completion.choices[0]!.finish_reason).toBe('stop');
    expect(typeof completion.choices[0]!.message.content).toBe('string');
    expect(completion.usage!.prompt_tokens).toBeGreaterThan(0);
  });

  it('streams a forced tool call into hub chunks ending with the usage chunk', async () => {
    const req: ChatRequest = {
      model: 'gpt-4o',
      messages: [{ role: 'user', content: 'Weather in Oslo?' }],
      tools,
      tool_choice: 'required',
      stream: true,
    };
    const res = await send(anthropicProvider.fromHub(req, 'claude-sonnet-4-6'));
    expect(res.status).toBe(200);
    const splitter = new SseEventSplitter();
    const transform = anthropicProvider.streamToHub();
    const chunks: ChatChunk[] = [];
    for await (const bytes of res.body!) {
      for (const raw of splitter.push(bytes as Uint8Array)) chunks.push(...transform.push(eventOf(raw)));
    }
    chunks.push(...transform.end());
    const args = chunks.flatMap((c) => c.choices[0]?.delta.tool_calls ?? []);
    expect(args[0]).toMatchObject({ index: 0, type: 'function', function: { name: 'get_weather' } });
    expect(JSON.parse(args.map((a) => a.function?.arguments ?? '').join(''))).toEqual(expect.any(Object));
    expect(chunks.map((c) => c.choices[0]?.finish_reason).filter(Boolean)).toEqual(['tool_calls']);
    const last = chunks.at(-1)!;
    expect(last.choices).toEqual([]);
    expect(last.usage!.completion_tokens).toBeGreaterThan(0);
  });

  it('carries a web search the server accepts, and reads its search back whole and streamed', async () => {
    const req: ChatRequest = {
      model: 'gpt-5',
      messages: [{ role: 'user', content: 'Please search for Shannon' }],
      web_search: {
        param: 'tools[0]',
        kind: 'web_search',
        allowed_domains: ['wikipedia.org'],
        user_location: { city: 'Paris', country: 'FR' },
      },
    };
    const whole = await send(anthropicProvider.fromHub(req, 'claude-sonnet-4-6'));
    expect(whole.status).toBe(200);
    const completion = anthropicProvider.toHub(await whole.json());
    const query = 'Please search for Shannon';
    expect(completion.choices[0]!.message).toMatchObject({
      web_search_calls: [{ id: expect.stringMatching(/^srvtoolu_/), query }],
      content: expect.stringMatching(/^This is a mock reply/),
    });

    const streamed = await send(anthropicProvider.fromHub({ ...req, stream: true }, 'claude-sonnet-4-6'));
    expect(streamed.status).toBe(200);
    const splitter = new SseEventSplitter();
    const transform = anthropicProvider.streamToHub();
    const chunks: ChatChunk[] = [];
    for await (const bytes of streamed.body!) {
      for (const raw of splitter.push(bytes as Uint8Array)) chunks.push(...transform.push(eventOf(raw)));
    }
    chunks.push(...transform.end());
    const calls = chunks.flatMap((c) => c.choices[0]?.delta.web_search_calls ?? []);
    expect(calls).toEqual([{ id: expect.stringMatching(/^srvtoolu_/), query }]);
    // The search is not a token: the usage counts the same fields as without it.
    expect(chunks.at(-1)!.usage!.completion_tokens).toBe(completion.usage!.completion_tokens);
  });
});

function eventOf(raw: string): SseEvent {
  const event = /^event: ?(.*)$/m.exec(raw)?.[1] ?? null;
  const data = raw
    .split(/\r?\n/)
    .filter((l) => l.startsWith('data:'))
    .map((l) => l.slice(5).replace(/^ /, ''))
    .join('\n');
  return { event, data };
}
