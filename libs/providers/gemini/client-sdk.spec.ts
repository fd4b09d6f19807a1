import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { GoogleGenAI } from '@google/genai';
import { SseEventSplitter } from '#libs/protocol';
import { type ChatChunk, type ChatCompletion } from '../src/chat.js';
import { type ClientContext, type SseFrame } from '../src/translation.js';
import { type JsonObject } from '../src/types.js';
import { geminiClient } from './client-api.js';

/**
 * The official @google/genai SDK is the judge of the wire format: a tiny server answers
 * `models/{model}:generateContent` and `:streamGenerateContent?alt=sse` with what geminiClient
 * produces, and the SDK's own parsers read it.
 */
type Reply = (ctx: ClientContext) => { stream: boolean; body: string };

let reply: Reply = () => ({ stream: false, body: '{}' });
let seen: { path: string; body: JsonObject } | null = null;
let server: Server;
let ai: GoogleGenAI;

beforeAll(async () => {
  server = createServer((req, res) => {
    let raw = '';
    req.on('data', (c: Buffer) => (raw += c.toString()));
    req.on('end', () => {
      const body = JSON.parse(raw) as JsonObject;
      seen = { path: req.url ?? '', body };
      const model = /models\/([^:]+):/.exec(req.url ?? '')?.[1] ?? '';
      const ctx: ClientContext = {
        requestId: 'req_sdk',
        model,
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
  // v1beta is the version the gateway serves (the SDK's default is v1). Jest's VM realm hides
  // Node's undici dispatcher from the SDK: handing it the realm's fetch skips that lookup.
  const httpOptions = { baseUrl: `http://127.0.0.1:${port}`, apiVersion: 'v1beta', fetch };
  ai = new GoogleGenAI({ apiKey: 'x', httpOptions });
});

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

const fixture = (name: string): string =>
  readFileSync(new URL(`./fixtures/${name}`, import.meta.url), 'utf8');
const recordedChunks = (): ChatChunk[] =>
  new SseEventSplitter()
    .push(new TextEncoder().encode(fixture('client-stream.sse')))
    .map((raw) => raw.trim().replace(/^data: /, ''))
    .filter((data) => data !== '[DONE]')
    .map((data) => JSON.parse(data) as ChatChunk);
const sse = (frames: readonly SseFrame[]): string => frames.map((f) => `data: ${f.data}\n\n`).join('');

const params = {
  model: 'gemini-2.5-flash',
  contents: 'Temperature in London and Paris?',
  config: { thinkingConfig: { includeThoughts: true, thinkingBudget: 8192 } },
};

describe('the official @google/genai SDK reading geminiClient output', () => {
  it('reads a streamed answer: thoughts, text, whole function calls, usage on the last chunk', async () => {
    reply = (ctx) => {
      const stream = geminiClient.streamFromHub(ctx);
      return {
        stream: true,
        body: sse([...recordedChunks().flatMap((c) => stream.push(c)), ...stream.end()]),
      };
    };
    const chunks = [];
    for await (const chunk of await ai.models.generateContentStream(params)) chunks.push(chunk);
    expect(seen?.path).toBe('/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse');
    // The SDK puts thinkingConfig in generationConfig; the translator read it back from there.
    expect(seen?.body.generationConfig).toEqual({
      thinkingConfig: { includeThoughts: true, thinkingBudget: 8192 },
    });
    // The SDK's `text` leaves thoughts out (and warns on the function-call chunk, so not asked there).
    expect(chunks.length).toBe(5);
    expect(chunks.slice(0, 4).map((c) => c.text ?? null)).toEqual([
      null,
      null,
      "I'll check",
      ' both cities.',
    ]);
    expect(chunks[0]?.candidates?.[0]?.content?.parts).toEqual([{ text: 'Two cities, ', thought: true }]);
    const last = chunks.at(-1)!;
    expect(last.functionCalls).toEqual([
      { id: 'call_0PVU1Pz1aqnXYhFbzEq3pD8f', name: 'get_current_temperature', args: { location: 'London' } },
      { id: 'call_1Qq3YhMnA9c7kLrV2xWe8bTz', name: 'get_current_temperature', args: { location: 'Paris' } },
    ]);
    expect(last.candidates?.[0]?.finishReason).toBe('STOP');
    expect(last.usageMetadata).toMatchObject({
      promptTokenCount: 1117,
      thoughtsTokenCount: 64,
      totalTokenCount: 1263,
    });
    expect(last.responseId).toBe('req_sdk');
  });

  it('surfaces a stream that failed after it started as an SDK error with the message', async () => {
    reply = (ctx) => {
      const stream = geminiClient.streamFromHub(ctx);
      const frames = recordedChunks()
        .slice(0, 4)
        .flatMap((c) => stream.push(c));
      return {
        stream: true,
        body: sse([...frames, ...stream.fail({ type: 'upstream_error', message: 'Provider went away' })]),
      };
    };
    const read = async (): Promise<void> => {
      for await (const chunk of await ai.models.generateContentStream(params)) void chunk;
    };
    await expect(read()).rejects.toThrow(/Provider went away/);
  });

  it('parses a non-streamed answer', async () => {
    reply = (ctx) => ({
      stream: false,
      body: JSON.stringify(
        geminiClient.fromHub(JSON.parse(fixture('client-completion.in.json')) as ChatCompletion, ctx),
      ),
    });
    const response = await ai.models.generateContent({ ...params, config: {} });
    expect(seen?.path).toBe('/v1beta/models/gemini-2.5-flash:generateContent');
    const parts = response.candidates?.[0]?.content?.parts ?? [];
    expect(parts.filter((p) => p.text !== undefined && !p.thought).map((p) => p.text)).toEqual([
      "I'll check the temperature in both cities.",
    ]);
    expect(response.functionCalls?.map((c) => c.args)).toEqual([
      { location: 'London' },
      { location: 'Paris' },
    ]);
    expect(response.modelVersion).toBe('gemini-2.5-flash');
    expect(response.usageMetadata?.candidatesTokenCount).toBe(82);
  });
});
