import { createServer, type Server } from 'node:http';
import { type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import Anthropic from '@anthropic-ai/sdk';
import { type ChatChunk, type ChatCompletion } from '../src/chat.js';
import { type ClientContext } from '../src/translation.js';
import { messagesClient } from './index.js';
import { fixture, frameText, json, sseEvents } from './spec-support.js';

/**
 * The official SDK is the judge of the wire format: a tiny server answers /v1/messages with
 * what messagesClient produces, and the SDK's own stream accumulator and parser read it.
 */
type Reply = (ctx: ClientContext) => { stream: boolean; body: string };

let reply: Reply = () => ({ stream: false, body: '{}' });
let server: Server;
let client: Anthropic;

beforeAll(async () => {
  server = createServer((req, res) => {
    let raw = '';
    req.on('data', (c: Buffer) => (raw += c.toString()));
    req.on('end', () => {
      const body = JSON.parse(raw) as Record<string, unknown>;
      const ctx: ClientContext = {
        requestId: 'req_sdk',
        model: String(body.model),
        created: 1,
        includeUsage: true,
        request: body,
      };
      const out = reply(ctx);
      res.writeHead(200, { 'content-type': out.stream ? 'text/event-stream' : 'application/json' });
      res.end(out.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  client = new Anthropic({ baseURL: `http://127.0.0.1:${port}`, apiKey: 'x', maxRetries: 0 });
});

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

const recordedChunks = (): ChatChunk[] =>
  sseEvents(fixture('messages-stream.sse'))
    .filter((e) => e.data !== '[DONE]')
    .map((e) => JSON.parse(e.data) as ChatChunk);

// An Anthropic SDK asking the gateway for a model an OpenAI-format provider serves.
const params = {
  model: 'gpt-4o-mini',
  max_tokens: 256,
  messages: [{ role: 'user' as const, content: 'Weather in Paris and Oslo?' }],
};

describe('the official @anthropic-ai/sdk reading messagesClient output', () => {
  it('accumulates a streamed answer: thinking, text, parallel tool inputs and exact usage', async () => {
    reply = (ctx) => {
      const stream = messagesClient.streamFromHub(ctx);
      const frames = [...recordedChunks().flatMap((c) => stream.push(c)), ...stream.end()];
      return { stream: true, body: frameText(frames) };
    };
    const texts: string[] = [];
    const stream = client.messages.stream(params).on('text', (t) => texts.push(t));
    const message = await stream.finalMessage();
    expect(texts).toEqual(['Checking', ' both.']);
    expect(message.id).toBe('msg_req_sdk');
    expect(message.model).toBe('gpt-4o-mini');
    expect(message.stop_reason).toBe('tool_use');
    expect(message.content).toEqual([
      { type: 'thinking', thinking: 'Two cities, two calls.', signature: '' },
      { type: 'text', text: 'Checking both.' },
      {
        type: 'tool_use',
        id: 'call_DdmO9pD3xa9XTPNJ32zg2hcA',
        name: 'get_weather',
        input: { location: 'Paris' },
      },
      {
        type: 'tool_use',
        id: 'call_ABCD9pD3xa9XTPNJ32zg2hcB',
        name: 'get_weather',
        input: { location: 'Oslo' },
      },
    ]);
    expect(message.usage).toMatchObject({
      input_tokens: 93,
      cache_read_input_tokens: 1024,
      cache_creation_input_tokens: 0,
      output_tokens: 46,
    });
  });

  it('surfaces a stream that failed after it started as an SDK error with the message', async () => {
    reply = (ctx) => {
      const stream = messagesClient.streamFromHub(ctx);
      const frames = [
        ...recordedChunks()
          .slice(0, 4)
          .flatMap((c) => stream.push(c)),
        ...stream.fail({ type: 'overloaded_error', message: 'Overloaded' }),
      ];
      return { stream: true, body: frameText(frames) };
    };
    await expect(client.messages.stream(params).finalMessage()).rejects.toThrow(/Overloaded/);
  });

  it('parses a non-streamed Message', async () => {
    reply = (ctx) => ({
      stream: false,
      body: JSON.stringify(messagesClient.fromHub(json<ChatCompletion>('messages-completion.in.json'), ctx)),
    });
    const message = await client.messages.create(params);
    expect(message.content[1]).toEqual({
      type: 'tool_use',
      id: 'call_DdmO9pD3xa9XTPNJ32zg2hcA',
      name: 'get_weather',
      input: { location: 'Paris, France' },
    });
    expect(message.usage.input_tokens + (message.usage.cache_read_input_tokens ?? 0)).toBe(1117);
  });
});
