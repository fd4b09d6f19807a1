import { describe, expect, it } from '@jest/globals';
import { type ProviderRuntime } from '#libs/config';
import { type DirectAnswer, type DirectPlan } from '#libs/providers';
import { directAnswer, directAttempt } from './direct-attempt.js';
import { type PreparedAttempt } from './request-plan.js';
import { sendAttempt } from './attempt-send.js';
import { BrokenBody, type BufferedResponse } from './buffered-dispatch.js';
import { type UpstreamClient, type UpstreamRequest } from './upstream.client.js';

const provider = { id: 'p' } as ProviderRuntime;

/** A call's scripted answer: its status and body, after a delay, or a thrown error. */
interface Script {
  readonly status?: number;
  readonly body?: string;
  readonly delayMs?: number;
  readonly error?: Error;
  /** The headers came, then the body broke. */
  readonly broken?: boolean;
}

/** An upstream that answers each call by its body's `n`, records what it saw, and honours aborts. */
function fakeUpstream(script: (n: number) => Script) {
  const seen: { n: number; headers: Record<string, string> }[] = [];
  const aborted: number[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  const postBuffered = async (req: UpstreamRequest): Promise<BufferedResponse> => {
    const n = (JSON.parse(String(req.body)) as { n: number }).n;
    seen.push({ n, headers: req.headers });
    req.headers.signature = `sig-${n}`;
    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    const s = script(n);
    try {
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(resolve, s.delayMs ?? 0);
        req.signal.addEventListener('abort', () => {
          clearTimeout(timer);
          aborted.push(n);
          reject(new Error('aborted'));
        });
      });
    } finally {
      inFlight--;
    }
    if (s.error) throw s.error;
    if (s.broken === true) throw new BrokenBody(s.status ?? 200, new Error('other side closed'));
    return {
      statusCode: s.status ?? 200,
      headers: { 'x-n': String(n) },
      body: Buffer.from(s.body ?? JSON.stringify({ n })),
    };
  };
  return {
    client: { postBuffered } as unknown as UpstreamClient,
    seen,
    aborted,
    maxInFlight: () => maxInFlight,
  };
}

function prepared(count: number, concurrency: number): PreparedAttempt {
  const plan: DirectPlan = {
    calls: Array.from({ length: count }, (_, n) => ({ path: `/call/${n}`, body: { n }, headers: {} })),
    concurrency,
    answer: (answers) => ({ body: { answers: answers.map((a) => a.body) }, usage: null }),
  };
  const direct = directAttempt(
    plan,
    { auth: 'x' },
    (p) => `/base${p}`,
    () => null,
  );
  return { direct } as PreparedAttempt;
}

const read = (res: BufferedResponse): Buffer => res.body;

const CTX = { requestId: 'r', model: 'm', created: 1, includeUsage: true, request: {} };

/** A plan's `answer` that keeps what it was handed. */
const record =
  (into: DirectAnswer[]): DirectPlan['answer'] =>
  (answers) => {
    into.push(...answers);
    return { body: {}, usage: null };
  };

describe('sendAttempt: a direct attempt of several calls', () => {
  it('sends every call, at most `concurrency` at once, each with its own headers, the answers in order', async () => {
    const up = fakeUpstream((n) => ({ delayMs: (7 - n) * 3 }));
    const attempt = prepared(7, 3);
    const res = await sendAttempt(up.client, provider, attempt, new AbortController().signal);
    expect(res.statusCode).toBe(200);
    expect(up.maxInFlight()).toBe(3);
    expect(up.seen.map((s) => s.n).sort()).toEqual([0, 1, 2, 3, 4, 5, 6]);
    // The credential writes each call's signature on its own object, never on the plan's.
    expect(attempt.direct!.calls.every((c) => !('signature' in c.headers))).toBe(true);
    const handed: DirectAnswer[] = [];
    const recording = { ...attempt.direct!, plan: { ...attempt.direct!.plan, answer: record(handed) } };
    directAnswer(recording, read(res), CTX);
    expect(handed.map((a) => a.body)).toEqual([0, 1, 2, 3, 4, 5, 6].map((n) => ({ n })));
    expect(handed.map((a) => a.headers['x-n'])).toEqual(['0', '1', '2', '3', '4', '5', '6']);
  });

  it("makes the first failing call the attempt's answer, aborts the others and sends no more", async () => {
    const up = fakeUpstream((n) =>
      n === 1 ? { status: 429, body: '{"message":"slow down"}' } : { delayMs: 50 },
    );
    const res = await sendAttempt(up.client, provider, prepared(10, 3), new AbortController().signal);
    expect(res.statusCode).toBe(429);
    expect(read(res).toString()).toBe('{"message":"slow down"}');
    expect(up.seen.map((s) => s.n).sort()).toEqual([0, 1, 2]);
    expect(up.aborted.sort()).toEqual([0, 2]);
  });

  it('rethrows a connection error of any call, the others aborted', async () => {
    const up = fakeUpstream((n) => (n === 2 ? { error: new Error('ECONNRESET') } : { delayMs: 50 }));
    await expect(
      sendAttempt(up.client, provider, prepared(5, 5), new AbortController().signal),
    ).rejects.toThrow('ECONNRESET');
    expect(up.aborted.sort()).toEqual([0, 1, 3, 4]);
  });

  it("stops every call when the attempt's own signal aborts (deadline, client gone)", async () => {
    const up = fakeUpstream(() => ({ delayMs: 1000 }));
    const abort = new AbortController();
    const sent = sendAttempt(up.client, provider, prepared(4, 2), abort.signal);
    await new Promise((r) => setTimeout(r, 10));
    abort.abort();
    await expect(sent).rejects.toThrow('aborted');
    expect(up.seen).toHaveLength(2);
  });

  it('reads the combined answer back through the plan, and a malformed one as the upstream failing', async () => {
    const up = fakeUpstream(() => ({}));
    const attempt = prepared(2, 2);
    const res = await sendAttempt(up.client, provider, attempt, new AbortController().signal);
    const ctx = { requestId: 'r', model: 'm', created: 1, includeUsage: true, request: {} };
    expect(JSON.parse(directAnswer(attempt.direct!, read(res), ctx).body)).toEqual({
      answers: [{ n: 0 }, { n: 1 }],
    });
    const broken = fakeUpstream((n) => (n === 1 ? { body: 'not json' } : {}));
    const bad = read(await sendAttempt(broken.client, provider, attempt, new AbortController().signal));
    expect(() => directAnswer(attempt.direct!, bad, ctx)).toThrow(
      expect.objectContaining({ code: 'upstream_error' }),
    );
    const whole = read(await sendAttempt(up.client, provider, attempt, new AbortController().signal));
    for (const cut of [Buffer.alloc(0), whole.subarray(0, whole.length - 1), Buffer.from('[{"body":1}]')])
      expect(() => directAnswer(attempt.direct!, cut, ctx)).toThrow(
        expect.objectContaining({ code: 'upstream_error' }),
      );
  });

  it("fails a call whose success broke off as a failed call, and an error answer's as a broken body", async () => {
    const success = fakeUpstream((n) => (n === 1 ? { broken: true } : {}));
    await expect(
      sendAttempt(success.client, provider, prepared(3, 3), new AbortController().signal),
    ).rejects.toThrow('other side closed');
    const refused = fakeUpstream((n) => (n === 1 ? { status: 400, broken: true } : { delayMs: 50 }));
    const err: unknown = await sendAttempt(
      refused.client,
      provider,
      prepared(3, 3),
      new AbortController().signal,
    ).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BrokenBody);
    expect(err).toMatchObject({ statusCode: 400, cause: new Error('other side closed') });
    expect(refused.aborted.sort()).toEqual([0, 2]);
  });

  it('sends a native attempt as its one request', async () => {
    const calls: UpstreamRequest[] = [];
    const client = {
      postBuffered: (req: UpstreamRequest) => {
        calls.push(req);
        return Promise.resolve({ statusCode: 204, headers: {}, body: Buffer.alloc(0) });
      },
    } as unknown as UpstreamClient;
    const native = { path: '/chat', headers: { a: 'b' }, body: '{}' } as unknown as PreparedAttempt;
    expect((await sendAttempt(client, provider, native, new AbortController().signal)).statusCode).toBe(204);
    expect(calls.map((c) => [c.path, c.body])).toEqual([['/chat', '{}']]);
  });
});
