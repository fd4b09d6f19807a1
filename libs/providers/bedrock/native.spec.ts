import { describe, expect, it } from '@jest/globals';
import { GatewayError } from '#libs/protocol';
import { bedrockAdapter, bedrockClientError, invokeMessagesDecoder, invokeMessagesWire } from './index.js';
import { chunkFrame, concatFrames, exceptionFrame, json, sseEvents } from './spec-support.js';

const route = bedrockAdapter.native.messages!;

describe('Messages through InvokeModel', () => {
  it('sends the body as the client wrote it, less model and stream, with the Bedrock version', () => {
    const client = {
      model: 'claude-sonnet',
      stream: true,
      max_tokens: 1024,
      system: [{ type: 'text', text: 'Be brief.', cache_control: { type: 'ephemeral' } }],
      thinking: { type: 'enabled', budget_tokens: 1024 },
      messages: [{ role: 'user', content: 'Hi' }],
      tools: [{ type: 'bash_20250124', name: 'bash' }],
    };
    const prepared = route.prepare(client, 'global.anthropic.claude-sonnet-4-5-20250929-v1:0');
    expect(prepared.body).toEqual({
      anthropic_version: 'bedrock-2023-05-31',
      max_tokens: 1024,
      system: client.system,
      thinking: client.thinking,
      messages: client.messages,
      tools: client.tools,
    });
    expect(Object.keys(prepared.body)[0]).toBe('anthropic_version');
    expect(prepared.clientWantsUsage).toBe(true);
  });

  it("carries the client's anthropic-beta header into the body, less the flags Bedrock does not know", () => {
    const claudeCode =
      'claude-code-20250219,interleaved-thinking-2025-05-14,context-management-2025-06-27,fine-grained-tool-streaming-2025-05-14';
    const prepared = route.prepare({ model: 'm', max_tokens: 10, messages: [] }, 'anthropic.claude', {
      'anthropic-beta': claudeCode,
    });
    expect(prepared.body.anthropic_beta).toEqual([
      'interleaved-thinking-2025-05-14',
      'context-management-2025-06-27',
    ]);
    expect(route.prepare({ messages: [] }, 'anthropic.claude', {}).body).not.toHaveProperty('anthropic_beta');
    expect(
      route.prepare({ messages: [] }, 'anthropic.claude', { 'anthropic-beta': 'oauth-2025-04-20' }).body,
    ).not.toHaveProperty('anthropic_beta');
  });

  it('names the model and the stream in the path', () => {
    expect(route.path('us.anthropic.claude-3-5-haiku-20241022-v1:0', false)).toBe(
      '/model/us.anthropic.claude-3-5-haiku-20241022-v1%3A0/invoke',
    );
    expect(route.path('us.anthropic.claude-3-5-haiku-20241022-v1:0', true)).toBe(
      '/model/us.anthropic.claude-3-5-haiku-20241022-v1%3A0/invoke-with-response-stream',
    );
  });

  it("decodes the chunk frames into Anthropic's own events, metered with the cache's reads and writes", () => {
    const events = json<Record<string, unknown>[]>('invoke-stream.frames.json');
    const bytes = concatFrames(events.map(chunkFrame));
    const decoder = invokeMessagesDecoder();
    let sse = '';
    for (let i = 0; i < bytes.length; i += 50) sse += decoder.push(bytes.subarray(i, i + 50));
    decoder.end();
    const decoded = sseEvents(sse);
    expect(decoded.map((e) => e.event)).toEqual(events.map((e) => e.type));
    expect(decoded.map((e) => JSON.parse(e.data) as unknown)).toEqual(events);
    const meter = invokeMessagesWire.meter(true);
    for (const e of decoded) meter.see(e.data);
    expect(meter.completed).toBe(true);
    expect(meter.usageFinal).toBe(true);
    expect(meter.usage).toEqual({
      inputTokens: 12 + 2048 + 1052,
      outputTokens: 6,
      cachedTokens: 2048,
      cacheWrite5mTokens: 1052,
      cacheWrite1hTokens: 0,
      reasoningTokens: 0,
    });
  });

  it("turns an exception frame into Anthropic's error event", () => {
    const decoder = invokeMessagesDecoder();
    const sse = decoder.push(
      exceptionFrame('throttlingException', 'Too many requests, please wait before trying again.'),
    );
    const [event] = sseEvents(sse);
    expect(event!.event).toBe('error');
    expect(JSON.parse(event!.data)).toEqual({
      type: 'error',
      error: { type: 'rate_limit_error', message: 'Too many requests, please wait before trying again.' },
    });
    expect(invokeMessagesWire.isErrorEvent(event!.data)).toBe(true);
  });
});

describe('bedrockAdapter', () => {
  it('sends content headers only, and a Bedrock API key as a bearer token', () => {
    expect(bedrockAdapter.upstreamHeaders(undefined, { 'anthropic-version': '2023-06-01' })).toEqual({
      'content-type': 'application/json',
      accept: 'application/json',
    });
    expect(bedrockAdapter.upstreamHeaders('ABSKQmVkcm9jaw==', {}).authorization).toBe(
      'Bearer ABSKQmVkcm9jaw==',
    );
  });

  it("renders Bedrock's request errors in the client's shape and leaves its failures to the failover", () => {
    const body = (message: string): Buffer => Buffer.from(JSON.stringify({ message }));
    const validation = bedrockClientError(
      400,
      body('Malformed input request: #: extraneous key [model] is not permitted'),
    );
    expect(validation).toBeInstanceOf(GatewayError);
    expect(validation!.code).toBe('invalid_request');
    expect(validation!.message).toBe('Malformed input request: #: extraneous key [model] is not permitted');
    expect(bedrockClientError(404, body('Model not found'))!.code).toBe('not_found');
    expect(bedrockClientError(400, Buffer.from('<html>'))!.message).toBe(
      'The provider rejected the request (HTTP 400).',
    );
    for (const status of [401, 403, 429, 500, 503]) expect(bedrockClientError(status, body('x'))).toBeNull();
  });

  it("words a refused credential as AWS does, for the provider's down reason", () => {
    const refusal = bedrockAdapter.refusalReason!;
    const headers = {
      'x-amzn-errortype':
        'UnrecognizedClientException:http://internal.amazon.com/coral/com.amazon.coral.service/',
    };
    const body = Buffer.from(
      JSON.stringify({ message: 'The security token included in the request is invalid.' }),
    );
    expect(refusal(403, headers, body)).toBe(
      'UnrecognizedClientException: The security token included in the request is invalid.',
    );
    expect(refusal(403, {}, Buffer.from('<html>'))).toBeNull();
    expect(refusal(403, headers, Buffer.from('x'))).toBe('UnrecognizedClientException');
    expect(refusal(403, {}, Buffer.from(JSON.stringify({ message: 'x'.repeat(500) })))!.length).toBe(200);
  });

  it('serves Messages natively to Claude only, everything else but embeddings through Converse', () => {
    const claude = bedrockAdapter.models!.of('global.anthropic.claude-sonnet-4-5-20250929-v1:0');
    expect(Object.keys(claude.native)).toEqual(['messages']);
    expect(
      bedrockAdapter.models!.of(
        'arn:aws:bedrock:us-east-1::foundation-model/anthropic.claude-3-haiku-20240307-v1:0',
      ),
    ).toBe(claude);
    const nova = bedrockAdapter.models!.of('amazon.nova-pro-v1:0');
    expect(nova.native).toEqual({});
    for (const a of [claude, nova]) {
      expect(a.none).toEqual(['embeddings']);
      expect(a.hubFormat({} as never).name).toBe('bedrock-converse');
    }
  });
});
