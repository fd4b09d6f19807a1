import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import OpenAI from 'openai';
import { type MockBehaviourPatch, type MockProvider } from '#libs/testing';
import { eventually, type Gateway, routingTestConfig, startGateway } from '../support/gateway.js';

/**
 * Failover and shunning with injected faults: p0 (mock 0) misbehaves, p1 (mock 1) is healthy, both
 * serve `m` at the same priority; `solo` is served by p0 alone.
 */
let gw: Gateway;
let client: OpenAI;
let bad: MockProvider;

beforeAll(async () => {
  gw = await startGateway(
    'e2e-routing',
    (_, urls) =>
      routingTestConfig(urls, {
        models: [
          { id: 'm', providers: [0, 1] },
          { id: 'solo', providers: [0] },
        ],
      }),
    { mocks: 2, router: { refreshMs: 200 } },
  );
  bad = gw.mocks[0]!;
  const key = await gw.createKey();
  client = new OpenAI({ baseURL: `${gw.edgeUrl}/v1`, apiKey: key.raw, maxRetries: 0 });
}, 30_000);

afterAll(async () => {
  await gw?.close();
});

const chatCount = (mock: MockProvider): number => mock.stats.byPath['/v1/chat/completions'] ?? 0;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function ask(model = 'm'): Promise<string> {
  const { response } = await client.chat.completions
    .create({ model, messages: [{ role: 'user', content: 'hi' }] })
    .withResponse();
  return response.headers.get('x-gateway-provider') ?? '';
}

const logRow = (requestId: string) => gw.logRow(requestId);

/**
 * Both mocks healthy, and the router seeing them up again, before the next fault. Requests keep
 * flowing meanwhile: a half-open provider closes on the success of its trial traffic.
 */
async function healthy(): Promise<void> {
  for (const m of gw.mocks) m.reset();
  await eventually(
    async () => {
      await ask();
      const res = await fetch(`${gw.routerUrl}/routes`);
      const body = (await res.json()) as { models: Record<string, { providerId: string; state: string }[]> };
      return body.models.m?.every((c) => c.state === 'up') ? true : undefined;
    },
    15_000,
    'both providers up',
  );
}

/**
 * The fault on p0: every request still succeeds (p1 answers), p0 is shunned within seconds (it
 * gets at most a trickle of trial traffic), and after the fault is cleared it gets traffic again.
 */
async function faultIsShunnedThenRecovers(fault: MockBehaviourPatch): Promise<void> {
  await healthy();
  bad.setBehaviour(fault);
  const served: string[] = [];
  for (let i = 0; i < 30; i++) served.push(await ask());
  expect(served.every((p) => p === 'p0' || p === 'p1')).toBe(true);

  await sleep(1_000);
  const before = chatCount(bad);
  for (let i = 0; i < 30; i++) expect(await ask()).toBe('p1');
  expect(chatCount(bad) - before).toBeLessThanOrEqual(6);

  bad.reset();
  await eventually(
    async () => ((await ask()) === 'p0' ? true : undefined),
    15_000,
    'traffic back on p0 after recovery',
  );
}

describe('failover with one bad provider of two', () => {
  it('500s: no client error, p0 shunned, back after recovery', async () => {
    await faultIsShunnedThenRecovers({ failureRate: 1, failStatus: 500 });
  }, 40_000);

  it('429 with retry-after: no client error, p0 shunned, back after recovery', async () => {
    await faultIsShunnedThenRecovers({ failureRate: 1, failStatus: 429, retryAfterSeconds: 1 });
  }, 40_000);

  it('hangs (accepts, never answers): first-byte timeout fails over, p0 shunned, back after recovery', async () => {
    await faultIsShunnedThenRecovers({ hang: true });
  }, 40_000);

  it('a non-stream body broken off mid-way fails over (nothing reached the client yet)', async () => {
    await faultIsShunnedThenRecovers({ resetMidStream: true });
  }, 40_000);

  it('records every attempt in the log row: the failed one, then the one that answered', async () => {
    await healthy();
    // Only chat fails: a failing probe would let the router take p0 out of the table before any
    // request tried it first (seen on a loaded runner, where each log row takes a while to land).
    bad.setBehaviour({ failureRate: 1, failStatus: 503, failurePath: '/v1/chat/completions' });
    let row;
    for (let i = 0; i < 20 && !row; i++) {
      const { response } = await client.chat.completions
        .create({ model: 'm', messages: [{ role: 'user', content: 'hi' }] })
        .withResponse();
      const found = await logRow(response.headers.get('x-request-id')!);
      if (found.attempts.length === 2) row = found;
    }
    if (!row) {
      // Say why p0 was never tried first: the edge's breaker and view, and the router's table.
      const edge = await (await fetch(`${gw.edgeUrl}/healthz`)).text();
      const routes = await (await fetch(`${gw.routerUrl}/routes`)).text();
      throw new Error(`no request tried p0 first in 20\nedge /healthz: ${edge}\nrouter /routes: ${routes}`);
    }
    expect(row.attempts).toEqual([
      { providerId: 'p0', status: 503, outcome: 'http_error', latencyMs: expect.any(Number) },
      { providerId: 'p1', status: 200, outcome: 'ok', latencyMs: expect.any(Number) },
    ]);
    expect(row.provider_id).toBe('p1');
    expect(row.status).toBe(200);
  }, 40_000);

  it('the only provider timing out before the first byte: 504 upstream_timeout, attempt logged as timeout', async () => {
    await healthy();
    bad.setBehaviour({ hang: true });
    const err = await client.chat.completions
      .create({ model: 'solo', messages: [{ role: 'user', content: 'hi' }] })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.APIError);
    expect((err as InstanceType<typeof OpenAI.APIError>).status).toBe(504);
    const requestId = (err as InstanceType<typeof OpenAI.APIError>).headers?.get('x-request-id');
    const row = await logRow(requestId!);
    expect(row.error_code).toBe('upstream_timeout');
    expect(row.attempts[0]).toMatchObject({ providerId: 'p0', status: 0, outcome: 'timeout' });
  }, 40_000);
});

describe('streams', () => {
  it('a stream reset mid-way ends with the error event, is not retried, and logs stream_error', async () => {
    await healthy();
    bad.setBehaviour({ resetMidStream: true, chunkCount: 6 });
    const before = chatCount(bad);
    const { data: stream, response } = await client.chat.completions
      .create({ model: 'solo', stream: true, messages: [{ role: 'user', content: 'stream' }] })
      .withResponse();
    expect(response.headers.get('x-gateway-provider')).toBe('p0');
    const chunks: unknown[] = [];
    const failure = await (async () => {
      for await (const chunk of stream) chunks.push(chunk);
    })().catch((e: unknown) => e);
    expect(chunks.length).toBeGreaterThan(0);
    expect(failure).toBeInstanceOf(OpenAI.APIError);
    expect(chatCount(bad) - before).toBe(1);
    const row = await logRow(response.headers.get('x-request-id')!);
    expect(row.error_code).toBe('upstream_stream_error');
    expect(row.attempts).toEqual([
      { providerId: 'p0', status: 200, outcome: 'stream_error', latencyMs: expect.any(Number) },
    ]);
  }, 40_000);

  it('streams breaking mid-way on p0 are shunned: after the first few, only trial streams reach p0', async () => {
    await healthy();
    bad.setBehaviour({ resetMidStream: true });
    const run = async (): Promise<boolean> => {
      const stream = await client.chat.completions.create({
        model: 'm',
        stream: true,
        messages: [{ role: 'user', content: 'stream' }],
      });
      try {
        for await (const _ of stream) void _;
        return true;
      } catch {
        return false;
      }
    };
    let failures = 0;
    for (let i = 0; i < 20; i++) if (!(await run())) failures++;
    expect(failures).toBeLessThanOrEqual(5);
    await sleep(500);
    // Only half-open trial traffic still reaches p0 (a trial stream that breaks cannot be retried).
    let later = 0;
    for (let i = 0; i < 20; i++) if (!(await run())) later++;
    expect(later).toBeLessThanOrEqual(3);
  }, 40_000);
});
