import { EventEmitter } from 'node:events';
import { describe, expect, it } from '@jest/globals';
import { type FastifyReply, type FastifyRequest } from 'fastify';
import { type KeyRecord } from '#libs/auth';
import { Catalog } from '#libs/config';
import { parseConfig } from '#libs/gateway-config';
import { CLIENT_APIS, type StreamMeter } from '#libs/providers';
import { type RequestLogJob } from '#libs/queue';
import { type RequestRecord } from '../logs/request-record.js';
import { newAttempt, type UpstreamAttempt } from '../logs/upstream-attempt.js';
import { type AttemptSettler } from '../upstream/attempt-settler.js';
import { type FailoverService } from '../upstream/failover.service.js';
import { type RequestPlan } from '../upstream/request-plan.js';
import { UpstreamRun } from '../upstream/upstream-run.js';
import { replyAnswer } from './client-answer.js';
import { type EdgeServices, ModelRequest } from './model-request.js';
import { ownRecord } from './request-end.js';

const KEY: KeyRecord = { id: 'k', userId: 'u', group: 'g', status: 'active', expiresAt: null };

const catalog = new Catalog(
  parseConfig({
    providers: [{ id: 'p', type: 'openai', base_url: 'http://127.0.0.1:1/v1', models: ['m'] }],
    models: [
      { id: 'm', owned_by: 'x', created: 1, pricing: { input_per_million: 1, output_per_million: 1 } },
    ],
    groups: { g: ['m'] },
  }),
  {},
);

const sse = (payload: object | string): string =>
  `data: ${typeof payload === 'string' ? payload : JSON.stringify(payload)}\n\n`;
const delta = (content: string) =>
  sse({ id: 'c', object: 'chat.completion.chunk', choices: [{ index: 0, delta: { content } }] });

/** The upstream's stream: each piece in turn, then its end, or (`until`) whenever it is aborted. */
async function* upstreamOf(pieces: readonly string[], until?: () => AbortSignal): AsyncGenerator<Uint8Array> {
  for (const piece of pieces) yield Buffer.from(piece);
  if (until === undefined) return;
  const signal = until();
  await new Promise((_resolve, reject) =>
    signal.addEventListener('abort', () => reject(new Error('aborted'))),
  );
}

/** The raw response the relay writes once the reply is hijacked. */
class RawResponse extends EventEmitter {
  writableFinished = false;
  written = '';
  setHeader = (): void => undefined;
  destroy = (): void => undefined;

  write(text: string): boolean {
    this.written += text;
    this.emit('written');
    return true;
  }

  end(): void {
    this.writableFinished = true;
    this.emit('finish');
  }
}

/** Every call the lifecycle makes on the edge's services, and what it sent the client. */
function harness(opts: { stream?: AsyncIterable<Uint8Array>; failStreamStart?: boolean } = {}) {
  const settled: Array<{ attempt: UpstreamAttempt; ended: string }> = [];
  const jobs: RequestLogJob[] = [];
  const charges: number[] = [];
  const expected: Array<Promise<void>> = [];
  let run: UpstreamRun | null = null;
  const failover = {
    call: (plan: RequestPlan, record: RequestRecord) => {
      run = new UpstreamRun(record.model!, false, 60_000);
      const provider = catalog.providers.get('p')!;
      const attempt = newAttempt('p', 'm', 'm', [], 0, true);
      attempt.status = 200;
      run.attempts.push(attempt);
      const response = { statusCode: 200, headers: {} };
      run.answer = {
        providerId: 'p',
        response: response as never,
        body: null,
        stream: opts.stream ?? upstreamOf([delta('Hi'), sse('[DONE]')]),
        prepared: plan.prepare(provider, 'm'),
        attempt,
      };
      return Promise.resolve(run);
    },
  } as unknown as FailoverService;
  const settler = {
    settle: (_record: RequestRecord, attempt: UpstreamAttempt, ended: string) => {
      attempt.ended = ended as UpstreamAttempt['ended'];
      settled.push({ attempt, ended });
    },
  } as unknown as AttemptSettler;
  const edge: EdgeServices = {
    keys: { authenticate: () => Promise.resolve(KEY) } as never,
    failover,
    settler,
    logs: {
      enqueue: (job: RequestLogJob) => jobs.push(job),
      expect: (p: Promise<void>) => expected.push(p),
    } as never,
    quota: {
      now: () => Date.now(),
      admit: () => Promise.resolve(),
      settle: (_r: unknown, cost: number) => charges.push(cost),
    } as never,
    telemetry: {
      requestPlanned: () => undefined,
      streamStarted: (_record: RequestRecord, meter: StreamMeter) => {
        if (opts.failStreamStart) throw new TypeError('injected');
        return meter;
      },
      streamEnded: () => undefined,
      responseReceived: () => undefined,
      requestFinished: () => undefined,
    } as never,
    markers: { open: () => Promise.resolve() } as never,
    catalog,
    providerHeader: false,
    strictGroups: new Set(),
  };
  const raw = new RawResponse();
  const sent: { body: unknown; status: number } = { body: null, status: 0 };
  const request = { id: 'req_1', url: '/v1/chat/completions', method: 'POST', headers: {}, query: {} };
  const reply = {
    raw,
    request,
    code(status: number) {
      sent.status = status;
      return this;
    },
    header() {
      return this;
    },
    headers() {
      return this;
    },
    type() {
      return this;
    },
    send(body: unknown) {
      sent.body = body;
      return this;
    },
    getHeaders: () => ({}),
    hijack() {
      return this;
    },
  };
  const start = (model = 'm') => {
    const req = { ...request, body: { model, stream: true, messages: [{ role: 'user', content: 'hello' }] } };
    const lifecycle = new ModelRequest(
      edge,
      CLIENT_APIS.chat,
      req as unknown as FastifyRequest,
      replyAnswer(reply as unknown as FastifyReply),
      ownRecord(edge, CLIENT_APIS.chat.route),
    );
    return { lifecycle, done: lifecycle.handle({ params: {}, query: {} }) };
  };
  return { start, settled, jobs, charges, expected, sent, raw, run: () => run };
}

/** What the client was sent, once the response ended. */
async function drain(raw: RawResponse): Promise<string> {
  if (!raw.writableFinished) await new Promise((resolve) => raw.once('finish', resolve));
  return raw.written;
}

describe('ModelRequest: one end, whatever way the request ends', () => {
  it('a stream relayed whole: its attempt settled ok once, one log, one charge', async () => {
    const h = harness();
    await h.start().done;
    expect(await drain(h.raw)).toContain('Hi');
    expect(h.settled.map((s) => s.ended)).toEqual(['ok']);
    await Promise.all(h.expected);
    expect(h.jobs).toHaveLength(1);
    expect(h.jobs[0]).toMatchObject({ status: 200, errorCode: null, providerId: 'p', stream: true });
    expect(h.jobs[0]!.attempts).toEqual([{ providerId: 'p', status: 200, outcome: 'ok', latencyMs: 0 }]);
    expect(h.charges).toHaveLength(1);
  });

  it('a client that hangs up: the upstream stopped, the attempt settled aborted, charged for what was produced', async () => {
    let signal: () => AbortSignal = () => new AbortController().signal;
    const h = harness({ stream: upstreamOf([delta('Hi there')], () => signal()) });
    signal = () => h.run()!.abort.signal;
    await h.start().done;
    await new Promise<void>((resolve) => h.raw.once('written', () => resolve()));
    h.raw.emit('close');
    expect(h.run()!.abort.signal.aborted).toBe(true);
    expect(h.settled.map((s) => s.ended)).toEqual(['aborted']);
    await Promise.all(h.expected);
    expect(h.jobs).toHaveLength(1);
    expect(h.jobs[0]).toMatchObject({ errorCode: 'client_disconnected', usageEstimated: true });
    expect(h.jobs[0]!.attempts[0]!.outcome).toBe('aborted');
    expect(h.charges).toEqual([h.jobs[0]!.costNanos]);
    expect(h.charges[0]).toBeGreaterThan(0);
  });

  it('an error before any upstream: its status logged and charged once, no attempt settled', async () => {
    const h = harness();
    await h.start('unknown').done;
    expect(h.sent.status).toBe(404);
    expect(h.settled).toEqual([]);
    expect(h.jobs).toHaveLength(1);
    expect(h.jobs[0]).toMatchObject({ status: 404, attempts: [] });
    expect(h.charges).toEqual([0]);
  });

  it('an error after the failover handed over a stream: the stream stopped and its attempt settled broken', async () => {
    const h = harness({ failStreamStart: true });
    await h.start().done;
    expect(h.sent.status).toBe(500);
    expect(h.run()!.abort.signal.aborted).toBe(true);
    expect(h.settled.map((s) => s.ended)).toEqual(['stream_error']);
    expect(h.jobs).toHaveLength(1);
    expect(h.jobs[0]!.attempts[0]!.outcome).toBe('stream_error');
  });

  it('a second end changes nothing: the first one logged and charged', async () => {
    const h = harness();
    const { lifecycle, done } = h.start();
    await done;
    await drain(h.raw);
    await Promise.all(h.expected);
    lifecycle.end({ status: 500, errorCode: 'internal_error' });
    lifecycle.relayEnded(false);
    expect(h.jobs).toHaveLength(1);
    expect(h.jobs[0]!.status).toBe(200);
    expect(h.charges).toHaveLength(1);
    expect(h.settled).toHaveLength(1);
  });
});
