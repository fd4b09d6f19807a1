import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Logger } from '@nestjs/common';
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { type DataPoint, type Histogram } from '@opentelemetry/sdk-metrics';
import { type ReadableSpan } from '@opentelemetry/sdk-trace';
import OpenAI from 'openai';
import { type GatewayConfigInput } from '#libs/config';
import { ATTR, installTestTelemetry, pointsOf, type TestTelemetry } from '#libs/telemetry';
import {
  eventually,
  type Gateway,
  routingTestConfigWithAnthropic,
  startGateway,
} from '../support/gateway.js';
import { type AppLogs, captureAppLogs } from './telemetry-logs.js';

/**
 * Telemetry end to end: the apps booted in this process with the SDK's in-memory exporters, real
 * Redis, Postgres and the mock provider, driven by the official OpenAI SDK. Metrics are
 * cumulative, so each test reads the change its own traffic made.
 */
let t: TestTelemetry;
let gw: Gateway;
let client: OpenAI;
let anthropic: Anthropic;
let logs: AppLogs;

beforeAll(async () => {
  t = await installTestTelemetry();
  gw = await startGateway('e2e-telemetry', withAnthropic, { mocks: 2 });
  logs = captureAppLogs();
  const key = await gw.createKey();
  client = new OpenAI({ baseURL: `${gw.edgeUrl}/v1`, apiKey: key.raw, maxRetries: 0 });
  anthropic = new Anthropic({ baseURL: gw.edgeUrl, apiKey: key.raw, maxRetries: 0 });
}, 30_000);

const withAnthropic = (_: string, urls: readonly string[]): GatewayConfigInput =>
  routingTestConfigWithAnthropic(urls, [0, 1]);

afterAll(async () => {
  await gw?.close();
  await t?.uninstall();
});

type Attrs = Record<string, unknown>;
const matches = (p: DataPoint<unknown>, want: Attrs) =>
  Object.entries(want).every(([k, v]) => p.attributes[k] === v);

/** Sum of counts (histograms) or values (counters) over the points matching `want`. */
async function total(name: string, want: Attrs, field: 'count' | 'sum' = 'count'): Promise<number> {
  const points = pointsOf(await t.collect(), name).filter((p) => matches(p, want));
  return points.reduce(
    (n, p) => n + (typeof p.value === 'number' ? p.value : ((p.value as Histogram)[field] ?? 0)),
    0,
  );
}

const CHAT_OK = { [ATTR.operation]: 'chat', [ATTR.requestModel]: 'm', [ATTR.httpStatus]: 200 };
const ask = (content = 'hello there') =>
  client.chat.completions.create({ model: 'm', messages: [{ role: 'user', content }] }).withResponse();

function spansOfTrace(traceId: string): ReadableSpan[] {
  return t.spans.getFinishedSpans().filter((s) => s.spanContext().traceId === traceId);
}

function serverSpanOf(requestId: string): ReadableSpan {
  const span = t.spans
    .getFinishedSpans()
    .find((s) => s.kind === SpanKind.SERVER && s.attributes[ATTR.requestId] === requestId);
  if (!span) throw new Error(`no server span for ${requestId}`);
  return span;
}

const attemptsUnder = (parent: ReadableSpan) =>
  childrenOf(parent)
    .filter((s) => s.kind === SpanKind.CLIENT && s.name.startsWith('chat '))
    .sort(
      (a, b) => (a.attributes['gateway.attempt'] as number) - (b.attributes['gateway.attempt'] as number),
    );

const childrenOf = (parent: ReadableSpan) =>
  spansOfTrace(parent.spanContext().traceId).filter(
    (s) => s.parentSpanContext?.spanId === parent.spanContext().spanId,
  );

/** The last upstream attempt of a request, once its trace is written. */
async function lastAttemptOf(requestId: string): Promise<ReadableSpan> {
  const server = await eventually(async () => {
    try {
      return serverSpanOf(requestId);
    } catch {
      return undefined;
    }
  });
  const failover = childrenOf(server).find((s) => s.name.startsWith('failover '))!;
  return attemptsUnder(failover).at(-1)!;
}

describe('metrics after known traffic', () => {
  it('a token count goes through the same end: its request duration, under its own operation', async () => {
    const route = { [ATTR.endpoint]: '/v1/messages/count_tokens' };
    const before = await total('gen_ai.server.request.duration', route);
    const counted = await anthropic.messages.countTokens({
      model: 'c',
      messages: [{ role: 'user', content: 'count me' }],
    });
    expect(counted.input_tokens).toBeGreaterThan(0);
    expect(await total('gen_ai.server.request.duration', route)).toBe(before + 1);
    const [point] = pointsOf(await t.collect(), 'gen_ai.server.request.duration').filter((p) =>
      matches(p, route),
    );
    expect(point!.attributes).toMatchObject({ [ATTR.operation]: 'count_tokens', [ATTR.requestModel]: 'c' });
  });

  it('3 chat requests: request duration count 3 with GenAI attributes, token sums equal the mock usage', async () => {
    const before = await total('gen_ai.server.request.duration', CHAT_OK);
    const inputBefore = await total('gen_ai.client.token.usage', { [ATTR.tokenType]: 'input' }, 'sum');
    const outputBefore = await total('gen_ai.client.token.usage', { [ATTR.tokenType]: 'output' }, 'sum');
    let input = 0;
    let output = 0;
    for (const text of ['one', 'two words', 'three words here']) {
      const { data } = await ask(text);
      input += data.usage!.prompt_tokens;
      output += data.usage!.completion_tokens;
    }
    expect(await total('gen_ai.server.request.duration', CHAT_OK)).toBe(before + 3);
    expect(await total('gen_ai.client.token.usage', { [ATTR.tokenType]: 'input' }, 'sum')).toBe(
      inputBefore + input,
    );
    expect(await total('gen_ai.client.token.usage', { [ATTR.tokenType]: 'output' }, 'sum')).toBe(
      outputBefore + output,
    );
    const [point] = pointsOf(await t.collect(), 'gen_ai.server.request.duration').filter((p) =>
      matches(p, CHAT_OK),
    );
    expect(point!.attributes).toMatchObject({
      [ATTR.endpoint]: '/v1/chat/completions',
      [ATTR.provider]: 'openai',
      [ATTR.providerId]: expect.stringMatching(/^p[01]$/),
    });
    // Every request also counts once in the HTTP server metric, and each attempt in the client one.
    expect(
      await total('http.server.request.duration', { [ATTR.httpRoute]: '/v1/chat/completions' }),
    ).toBeGreaterThanOrEqual(3);
    expect(
      await total('gen_ai.client.operation.duration', { [ATTR.requestModel]: 'm' }),
    ).toBeGreaterThanOrEqual(3);
    // One key: the first lookup missed memory, the others hit it.
    expect(
      await total('gateway.edge.key_cache.lookups', {
        [ATTR.cacheTier]: 'memory',
        [ATTR.cacheResult]: 'hit',
      }),
    ).toBeGreaterThanOrEqual(2);
  });

  it('a stream: time to first token recorded once', async () => {
    const before = await total('gen_ai.server.time_to_first_token', { [ATTR.requestModel]: 'm' });
    const stream = await client.chat.completions.create({
      model: 'm',
      stream: true,
      messages: [{ role: 'user', content: 'stream please' }],
    });
    for await (const _chunk of stream) void _chunk;
    await eventually(async () =>
      (await total('gen_ai.server.time_to_first_token', { [ATTR.requestModel]: 'm' })) === before + 1
        ? true
        : undefined,
    );
  });
});

describe('one trace per request', () => {
  it('server span -> auth (Postgres lookup), quota, route, failover -> attempt, with GenAI attributes', async () => {
    const key = await gw.createKey({ email: 'trace@example.com' });
    const fresh = new OpenAI({ baseURL: `${gw.edgeUrl}/v1`, apiKey: key.raw, maxRetries: 0 });
    const { data, response } = await fresh.chat.completions
      .create({ model: 'm', messages: [{ role: 'user', content: 'trace me' }] })
      .withResponse();
    const requestId = response.headers.get('x-request-id')!;
    const server = await eventually(async () => {
      try {
        return serverSpanOf(requestId);
      } catch {
        return undefined;
      }
    });
    expect(server.name).toBe('POST /v1/chat/completions');
    expect(server.attributes).toMatchObject({
      [ATTR.httpStatus]: 200,
      [ATTR.operation]: 'chat',
      [ATTR.requestModel]: 'm',
      [ATTR.provider]: 'openai',
      'gen_ai.system': 'openai',
      [ATTR.inputTokens]: data.usage!.prompt_tokens,
      [ATTR.outputTokens]: data.usage!.completion_tokens,
      [ATTR.responseModel]: data.model,
      [ATTR.finishReasons]: ['stop'],
    });
    const children = childrenOf(server);
    const names = children.map((s) => s.name);
    expect(names).toEqual(expect.arrayContaining(['auth', 'quota', 'failover m']));
    const auth = children.find((s) => s.name === 'auth')!;
    // A key never seen: memory miss, Redis miss (one MGET: the copy and its generation), then Postgres.
    const authChildren = childrenOf(auth);
    expect(authChildren.some((s) => s.name === 'mget' && s.attributes['db.system.name'] === 'redis')).toBe(
      true,
    );
    expect(authChildren.some((s) => s.attributes['db.system.name'] === 'postgresql')).toBe(true);
    const failover = children.find((s) => s.name === 'failover m')!;
    // The routing decision is the failover's first step.
    expect(
      childrenOf(failover).find((s) => s.name === 'route m')?.attributes['gateway.route.candidates'],
    ).toEqual(expect.arrayContaining(['p0', 'p1']));
    const [attempt] = attemptsUnder(failover);
    expect(attempt).toMatchObject({ name: 'chat m', kind: SpanKind.CLIENT });
    expect(attempt!.attributes).toMatchObject({
      [ATTR.operation]: 'chat',
      [ATTR.provider]: 'openai',
      [ATTR.requestModel]: 'm',
      [ATTR.responseModel]: data.model,
      [ATTR.inputTokens]: data.usage!.prompt_tokens,
      [ATTR.outputTokens]: data.usage!.completion_tokens,
      [ATTR.finishReasons]: ['stop'],
      [ATTR.httpStatus]: 200,
    });
    await gw.logRow(requestId);
  });

  it('a streamed chat answer: the attempt names the response model and finish reason too', async () => {
    const { data: stream, response } = await client.chat.completions
      .create({ model: 'm', stream: true, messages: [{ role: 'user', content: 'stream a trace' }] })
      .withResponse();
    let model = '';
    const reasons: string[] = [];
    for await (const chunk of stream) {
      model = chunk.model;
      for (const c of chunk.choices) if (c.finish_reason) reasons.push(c.finish_reason);
    }
    expect(reasons).toEqual(['stop']);
    const attempt = await lastAttemptOf(response.headers.get('x-request-id')!);
    expect(attempt.attributes).toMatchObject({
      [ATTR.provider]: 'openai',
      [ATTR.responseModel]: model,
      [ATTR.finishReasons]: ['stop'],
      [ATTR.outputTokens]: expect.any(Number),
      [ATTR.httpStatus]: 200,
    });
  });

  it('a streamed Anthropic messages answer: model from message_start, stop reason from message_delta', async () => {
    const { data: stream, response } = await anthropic.messages
      .create({ model: 'c', max_tokens: 50, stream: true, messages: [{ role: 'user', content: 'hi' }] })
      .withResponse();
    let model = '';
    let stopReason: string | null = null;
    for await (const event of stream) {
      if (event.type === 'message_start') model = event.message.model;
      if (event.type === 'message_delta') stopReason = event.delta.stop_reason;
    }
    expect(model).toBe('c');
    expect(stopReason).toEqual(expect.any(String));
    const attempt = await lastAttemptOf(response.headers.get('x-request-id')!);
    expect(attempt.attributes).toMatchObject({
      [ATTR.provider]: 'anthropic',
      [ATTR.providerId]: 'pa',
      [ATTR.responseModel]: 'c',
      [ATTR.finishReasons]: [stopReason],
      [ATTR.outputTokens]: expect.any(Number),
    });
  });

  it('the queue hop: the worker job and batch spans take the request span as parent, Postgres writes nest under the batch', async () => {
    // The worker's batches gather logs arriving within batch_wait_ms; a request alone in the
    // queue (the usual case when idle) is 1:1 with its job and batch. Earlier logs are written.
    let server: ReadableSpan | undefined;
    let batch: ReadableSpan | undefined;
    let job: ReadableSpan | undefined;
    for (let i = 0; i < 5 && !(batch && batch.links.length === 1); i++) {
      const { response } = await ask(`through the queue ${i}`);
      const requestId = response.headers.get('x-request-id')!;
      await gw.logRow(requestId);
      server = serverSpanOf(requestId);
      const linkedOrChild = (s: ReadableSpan) =>
        s.parentSpanContext?.spanId === server!.spanContext().spanId ||
        s.links.some((l) => l.context.spanId === server!.spanContext().spanId);
      batch = await eventually(async () =>
        t.spans.getFinishedSpans().find((s) => s.name === 'write request_logs batch' && linkedOrChild(s)),
      );
      job = await eventually(async () =>
        t.spans.getFinishedSpans().find((s) => s.name === 'process request-logs' && linkedOrChild(s)),
      );
    }
    if (!server || !batch || !job) throw new Error('no request went through the queue alone');
    const traceId = server.spanContext().traceId;
    expect(job.kind).toBe(SpanKind.CONSUMER);
    // Sequential requests flush alone (5 ms flushes): one log per job and batch, so 1:1 parenting.
    expect(batch.spanContext().traceId).toBe(traceId);
    expect(batch.parentSpanContext?.spanId).toBe(server.spanContext().spanId);
    expect(job.spanContext().traceId).toBe(traceId);
    const writes = childrenOf(batch).filter((s) => s.attributes['db.system.name'] === 'postgresql');
    expect(
      writes.some((s) => String(s.attributes['db.query.text']).includes('insert into "request_logs"')),
    ).toBe(true);
    // The edge enqueued it with its traceparent; the worker metrics saw the batch.
    expect(await total('gateway.worker.batch.size', { [ATTR.outcome]: 'ok' })).toBeGreaterThanOrEqual(1);
  });
});

describe('failover', () => {
  afterAll(() => gw.mocks[0]!.reset());

  it('a failing provider: upstream error and failover counted, two attempt spans, the first in error', async () => {
    const errorsBefore = await total('gateway.upstream.errors', { [ATTR.providerId]: 'p0' });
    const failoversBefore = await total('gateway.upstream.failovers', { [ATTR.requestModel]: 'm' });
    // Probes must keep passing, or the router opens p0 before any request tries it first.
    gw.mocks[0]!.setBehaviour({ failureRate: 1, failStatus: 503, failurePath: '/v1/chat/completions' });
    let requestId: string | null = null;
    for (let i = 0; i < 20 && requestId === null; i++) {
      const { response } = await ask(`failover ${i}`);
      const id = response.headers.get('x-request-id')!;
      if ((await gw.logRow(id)).attempts.length === 2) requestId = id;
    }
    expect(requestId).not.toBeNull();
    expect(
      await total('gateway.upstream.errors', {
        [ATTR.providerId]: 'p0',
        [ATTR.errorType]: 'http_error',
        [ATTR.httpStatus]: 503,
      }),
    ).toBeGreaterThan(errorsBefore);
    expect(await total('gateway.upstream.failovers', { [ATTR.requestModel]: 'm' })).toBeGreaterThan(
      failoversBefore,
    );
    const server = serverSpanOf(requestId!);
    const failover = childrenOf(server).find((s) => s.name === 'failover m')!;
    const attempts = attemptsUnder(failover);
    expect(attempts.map((a) => [a.attributes[ATTR.providerId], a.attributes[ATTR.httpStatus]])).toEqual([
      ['p0', 503],
      ['p1', 200],
    ]);
    expect(attempts[0]!.status.code).toBe(SpanStatusCode.ERROR);
    expect(attempts[0]!.attributes[ATTR.errorType]).toBe('http_error');
    expect(attempts[1]!.attributes[ATTR.outputTokens]).toEqual(expect.any(Number));
  }, 30_000);
});

describe('/metrics on every app', () => {
  async function scrape(url: string): Promise<string> {
    const res = await fetch(`${url}/metrics`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/plain; version=0.0.4');
    return res.text();
  }

  it('Prometheus text on each app port, with the series the dashboard reads', async () => {
    await ask('scrape');
    const edge = await scrape(gw.edgeUrl);
    expect(edge).toMatch(/^gen_ai_server_request_duration_count\{.*gen_ai_request_model="m".*\} \d+/m);
    expect(edge).toMatch(/^gateway_edge_key_cache_lookups_total\{/m);
    expect(edge).toMatch(/^gen_ai_client_token_usage_bucket\{/m);
    const router = await scrape(gw.routerUrl);
    expect(router).toMatch(/^gateway_router_breaker_state\{.*gateway_provider_id="p1".*\} [012]/m);
    const worker = await scrape(gw.workerUrl);
    expect(worker).toMatch(/^gateway_queue_depth\{.*gateway_queue_state="waiting".*\} \d+/m);
    expect(worker).toMatch(/^gateway_queue_lag\{/m);
    const console = await scrape(gw.consoleUrl);
    expect(console).toMatch(/^http_server_request_duration_count\{/m);
  });
});

describe('content capture off (the default)', () => {
  // Runs last: it reads every span and log line the tests above produced.
  it('no span carries prompts or completions, and no log line holds what was asked or answered', async () => {
    const { data } = await ask('off-switch prompt');
    new Logger('Probe').log('the log capture is live');
    await eventually(async () => (logs.lines.some((l) => l.context === 'Probe') ? true : undefined));
    const spans = t.spans.getFinishedSpans();
    // The attempt spans are where capture would put content: there must be some to look at.
    expect(spans.some((s) => s.kind === SpanKind.CLIENT && s.name === 'chat m')).toBe(true);
    for (const span of spans) {
      // A path array: the dots in these names are part of the key, not a path into it.
      for (const name of [ATTR.inputMessages, ATTR.outputMessages, ATTR.systemInstructions])
        expect(span.attributes).not.toHaveProperty([name]);
    }
    const text = JSON.stringify(logs.lines);
    for (const said of ['off-switch prompt', 'trace me', 'stream a trace', data.choices[0]!.message.content!])
      expect(text).not.toContain(said);
    expect(logs.lines.some((l) => l.context === 'GenAiContent')).toBe(false);
  });
});
