import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { SpanKind } from '@opentelemetry/api';
import { type ReadableSpan } from '@opentelemetry/sdk-trace';
import OpenAI from 'openai';
import { type GatewayConfigInput } from '#libs/config';
import {
  ATTR,
  CONTENT_MAX_BYTES,
  installTestTelemetry,
  type TestTelemetry,
  TRUNCATED_MARK,
} from '#libs/telemetry';
import {
  eventually,
  type Gateway,
  routingTestConfigWithAnthropic,
  startGateway,
} from '../support/gateway.js';
import { type AppLogs, captureAppLogs } from './telemetry-logs.js';

/**
 * Content capture on (OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true, as the test hook
 * sets it): the apps with in-memory exporters and their log lines read back. The capture-off
 * default is asserted in telemetry.e2e-spec.ts, which boots with the setting unset.
 */
let t: TestTelemetry;
let gw: Gateway;
let logs: AppLogs;
let key: string;
let client: OpenAI;
let anthropic: Anthropic;
const COOKIE = 'session=cookie-secret-4711';

beforeAll(async () => {
  t = await installTestTelemetry({ captureContent: true });
  gw = await startGateway('e2e-telemetry-content', withAnthropic);
  logs = captureAppLogs();
  key = (await gw.createKey()).raw;
  client = new OpenAI({
    baseURL: `${gw.edgeUrl}/v1`,
    apiKey: key,
    maxRetries: 0,
    defaultHeaders: { cookie: COOKIE },
  });
  anthropic = new Anthropic({ baseURL: gw.edgeUrl, apiKey: key, maxRetries: 0 });
}, 30_000);

afterAll(async () => {
  await gw?.close();
  await t?.uninstall();
});

const withAnthropic = (_: string, urls: readonly string[]): GatewayConfigInput =>
  routingTestConfigWithAnthropic(urls, [0]);

type Json = ReturnType<typeof JSON.parse>;

/** The request's last upstream attempt span (CLIENT, under its failover span). */
async function attemptOf(requestId: string): Promise<ReadableSpan> {
  const server = await eventually(async () =>
    t.spans
      .getFinishedSpans()
      .find((s) => s.kind === SpanKind.SERVER && s.attributes[ATTR.requestId] === requestId),
  );
  const inTrace = t.spans
    .getFinishedSpans()
    .filter((s) => s.spanContext().traceId === server.spanContext().traceId);
  const failover = inTrace.find((s) => s.name.startsWith('failover '))!;
  return inTrace
    .filter(
      (s) => s.kind === SpanKind.CLIENT && s.parentSpanContext?.spanId === failover.spanContext().spanId,
    )
    .sort((a, b) => (a.attributes['gateway.attempt'] as number) - (b.attributes['gateway.attempt'] as number))
    .at(-1)!;
}

const contentLineOf = (requestId: string) =>
  eventually(async () => logs.lines.find((l) => l.context === 'GenAiContent' && l.request_id === requestId));

const attr = (span: ReadableSpan, name: string): Json => JSON.parse(span.attributes[name] as string);

/** The text parts of the first output message. */
const outputText = (span: ReadableSpan): string =>
  (attr(span, ATTR.outputMessages) as Array<{ parts: Array<{ type: string; content?: string }> }>)[0]!.parts
    .filter((p) => p.type === 'text')
    .map((p) => p.content)
    .join('');

describe('content capture on', () => {
  it('a non-stream chat: the attempt span and one log line carry the prompt and the answer; never the key or the cookie', async () => {
    const { data, response } = await client.chat.completions
      .create({ model: 'm', messages: [{ role: 'user', content: 'capture this prompt' }] })
      .withResponse();
    const requestId = response.headers.get('x-request-id')!;
    const attempt = await attemptOf(requestId);
    expect(attr(attempt, ATTR.inputMessages)).toEqual([
      { role: 'user', parts: [{ type: 'text', content: 'capture this prompt' }] },
    ]);
    expect(attr(attempt, ATTR.outputMessages)).toEqual([
      {
        role: 'assistant',
        parts: [{ type: 'text', content: data.choices[0]!.message.content }],
        finish_reason: 'stop',
      },
    ]);
    expect(attempt.attributes).not.toHaveProperty([ATTR.systemInstructions]);

    const line = await contentLineOf(requestId);
    expect(line).toMatchObject({
      msg: 'gen_ai content',
      trace_id: attempt.spanContext().traceId,
      [ATTR.requestModel]: 'm',
      [ATTR.inputMessages]: attempt.attributes[ATTR.inputMessages],
      [ATTR.outputMessages]: attempt.attributes[ATTR.outputMessages],
    });
    for (const text of [JSON.stringify(line), JSON.stringify(attempt.attributes)]) {
      expect(text).not.toContain(key);
      expect(text).not.toContain('cookie-secret-4711');
    }
    // The server span stays metadata only: the content is on the attempt that produced it.
    const server = t.spans.getFinishedSpans().find((s) => s.attributes[ATTR.requestId] === requestId)!;
    expect(server.attributes).not.toHaveProperty([ATTR.inputMessages]);
  });

  it('a streamed Anthropic messages request: system apart, the streamed text as output, the stop reason', async () => {
    const { data: stream, response } = await anthropic.messages
      .create({
        model: 'c',
        max_tokens: 60,
        stream: true,
        system: 'You are a terse assistant.',
        messages: [{ role: 'user', content: 'stream this capture' }],
      })
      .withResponse();
    let streamed = '';
    let stop: string | null = null;
    for await (const event of stream) {
      if (event.type === 'content_block_delta' && event.delta.type === 'text_delta')
        streamed += event.delta.text;
      if (event.type === 'message_delta') stop = event.delta.stop_reason;
    }
    expect(streamed).toContain('stream this capture');
    const requestId = response.headers.get('x-request-id')!;
    const attempt = await attemptOf(requestId);
    expect(attr(attempt, ATTR.systemInstructions)).toEqual([
      { type: 'text', content: 'You are a terse assistant.' },
    ]);
    expect(attr(attempt, ATTR.inputMessages)).toEqual([
      { role: 'user', parts: [{ type: 'text', content: 'stream this capture' }] },
    ]);
    expect(attr(attempt, ATTR.outputMessages)).toEqual([
      { role: 'assistant', parts: [{ type: 'text', content: streamed }], finish_reason: stop },
    ]);
    expect(await contentLineOf(requestId)).toMatchObject({
      trace_id: attempt.spanContext().traceId,
      [ATTR.systemInstructions]: attempt.attributes[ATTR.systemInstructions],
      [ATTR.outputMessages]: attempt.attributes[ATTR.outputMessages],
    });
  });

  it('a chat stream translated to the Anthropic provider: the output read from the upstream events', async () => {
    const { data: stream, response } = await client.chat.completions
      .create({ model: 'c', stream: true, messages: [{ role: 'user', content: 'translate this capture' }] })
      .withResponse();
    let streamed = '';
    for await (const chunk of stream) streamed += chunk.choices[0]?.delta.content ?? '';
    const attempt = await attemptOf(response.headers.get('x-request-id')!);
    expect(attempt.attributes[ATTR.providerId]).toBe('pa');
    expect(outputText(attempt)).toBe(streamed);
    expect(attr(attempt, ATTR.inputMessages)[0].parts[0].content).toBe('translate this capture');
  });

  it('a Responses stream: instructions apart, the output text deltas', async () => {
    const { data: stream, response } = await client.responses
      .create({ model: 'm', stream: true, instructions: 'Answer plainly.', input: 'respond to this capture' })
      .withResponse();
    let streamed = '';
    for await (const event of stream)
      if (event.type === 'response.output_text.delta') streamed += event.delta;
    const attempt = await attemptOf(response.headers.get('x-request-id')!);
    expect(attr(attempt, ATTR.inputMessages)).toEqual([
      { role: 'user', parts: [{ type: 'text', content: 'respond to this capture' }] },
    ]);
    expect(attr(attempt, ATTR.systemInstructions)).toEqual([{ type: 'text', content: 'Answer plainly.' }]);
    expect(outputText(attempt)).toBe(streamed);
  });

  it('embeddings: the input is captured, the vectors are not', async () => {
    const { response } = await client.embeddings
      .create({ model: 'm', input: 'embed this capture' })
      .withResponse();
    const attempt = await attemptOf(response.headers.get('x-request-id')!);
    expect(attr(attempt, ATTR.inputMessages)).toEqual([
      { role: 'user', parts: [{ type: 'text', content: 'embed this capture' }] },
    ]);
    expect(attempt.attributes).not.toHaveProperty([ATTR.outputMessages]);
  });

  it('a huge prompt is cut to the bound, marked, and still JSON', async () => {
    const { response } = await client.chat.completions
      .create({ model: 'm', messages: [{ role: 'user', content: `huge ${'z'.repeat(200_000)}` }] })
      .withResponse();
    const requestId = response.headers.get('x-request-id')!;
    const attempt = await attemptOf(requestId);
    const input = attempt.attributes[ATTR.inputMessages] as string;
    expect(Buffer.byteLength(input)).toBeLessThanOrEqual(CONTENT_MAX_BYTES);
    expect(attr(attempt, ATTR.inputMessages)[0].parts[0].content).toMatch(/^huge z+…\[truncated\]$/);
    expect(input).toContain(TRUNCATED_MARK);
    const line = await contentLineOf(requestId);
    expect(Buffer.byteLength(JSON.stringify(line))).toBeLessThan(3 * CONTENT_MAX_BYTES);
  });
});
