import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { type NestFastifyApplication } from '@nestjs/platform-fastify';
import { createEdgeApp } from '../../apps/edge/src/edge.app.js';
import { ModelRequestService } from '../../apps/edge/src/pipeline/model-request.service.js';
import { EdgeTelemetry } from '../../apps/edge/src/telemetry/edge-telemetry.service.js';
import { createRedis, type RedisClient, redisKeys } from '#libs/redis';
import { GracefulDrain } from '#libs/runtime';
import { type Gateway, startGateway, testConfigWithAnthropic } from '../support/gateway.js';
import { rawExchange, type RawResponse } from '../support/raw-http.js';
import { until } from '../support/wait.js';
import { type AppLogs, captureAppLogs } from './telemetry-logs.js';

/**
 * The edge's HTTP layer under what no SDK sends: pipelines with a broken request in them, bytes
 * Node's parser refuses, bodies too deep or too large, and a fault inside the app. Each answer is
 * in the client's shape with a request id; the raw socket shows exactly what goes on the wire.
 */
let gw: Gateway;
let edge: NestFastifyApplication;
let edgeUrl: string;
let redis: RedisClient;
let logs: AppLogs;
let apiKey: { raw: string; userId: string };

beforeAll(async () => {
  gw = await startGateway('edge-http-faults', (url) => testConfigWithAnthropic(url));
  // An edge of our own, to read its drain tracker.
  edge = await createEdgeApp(gw.env, gw.config);
  await edge.listen(0, '127.0.0.1');
  edgeUrl = (await edge.getUrl()).replace('[::1]', '127.0.0.1');
  redis = createRedis(gw.env.redis, { name: 'e2e-edge-http-faults' });
  logs = captureAppLogs();
  apiKey = await gw.createKey();
}, 30_000);

afterAll(async () => {
  redis?.disconnect();
  await edge?.close();
  await gw?.close();
});

const CRLF = '\r\n';
const request = (head: string[], body = ''): string => head.join(CRLF) + CRLF + CRLF + body;

function expectShapeA(res: RawResponse, status: number, code: string): void {
  expect(res.status).toBe(status);
  expect(res.headers['content-type']).toMatch(/^application\/json/);
  expect(res.headers['x-request-id']).toMatch(/^req_[0-9a-f]{32}$/);
  expect(res.json).toEqual({
    error: { message: expect.any(String), type: 'invalid_request_error', param: null, code },
  });
}

describe('a malformed request in a pipeline', () => {
  it('is answered, and so is the request behind it; both leave the drain tracker', async () => {
    const drain = edge.get(GracefulDrain);
    const exchange = await rawExchange(
      edgeUrl,
      request(
        [
          'POST /v1/chat/completions HTTP/1.1',
          'host: x',
          'content-type: application/json',
          'content-length: 4',
        ],
        '{bad',
      ) + request(['GET /v1/models HTTP/1.1', 'host: x', `authorization: Bearer ${apiKey.raw}`]),
      2,
    );
    expect(exchange.responses).toHaveLength(2);
    expectShapeA(exchange.responses[0]!, 400, 'invalid_json');
    expect(exchange.responses[1]!.status).toBe(200);
    expect(exchange.responses[1]!.json).toMatchObject({ object: 'list' });
    await until(() => drain.inFlight === 0, 2_000, 'the tracker to empty');
  });
});

describe('bytes Node refuses before any request exists', () => {
  const cases: Array<[string, string, number, string]> = [
    [
      'over-long headers',
      request(['GET /v1/models HTTP/1.1', 'host: x', `x-big: ${'a'.repeat(20_000)}`]),
      431,
      'request_header_too_large',
    ],
    [
      'broken chunking',
      request(
        [
          'POST /v1/chat/completions HTTP/1.1',
          'host: x',
          'content-type: application/json',
          'transfer-encoding: chunked',
        ],
        'zz\r\n{}\r\n0\r\n\r\n',
      ),
      400,
      'invalid_request',
    ],
    [
      'Content-Length with Transfer-Encoding',
      request(
        ['POST /v1/chat/completions HTTP/1.1', 'host: x', 'content-length: 4', 'transfer-encoding: chunked'],
        '0\r\n\r\n',
      ),
      400,
      'invalid_request',
    ],
    [
      'a duplicate Content-Length',
      request(
        ['POST /v1/chat/completions HTTP/1.1', 'host: x', 'content-length: 2', 'content-length: 3'],
        '{}',
      ),
      400,
      'invalid_request',
    ],
    ['a bare LF', 'GET /v1/models HTTP/1.1\nhost: x\n\n', 400, 'invalid_request'],
    [
      'a NUL in a header',
      request(['GET /v1/models HTTP/1.1', 'host: x', 'x-a: a\0b']),
      400,
      'invalid_request',
    ],
  ];
  it.each(cases)(
    '%s: shape A with a fresh request id, then the connection closes',
    async (_, bytes, status, code) => {
      const { responses, closedByServer } = await rawExchange(edgeUrl, bytes, 2);
      expect(responses).toHaveLength(1);
      expectShapeA(responses[0]!, status, code);
      expect(closedByServer).toBe(true);
    },
  );
});

describe('requests the router refuses', () => {
  it('a path Fastify cannot decode: 400 in the client shape, with its request id', async () => {
    const [chat] = (await rawExchange(edgeUrl, request(['POST /v1/chat/completions%zz HTTP/1.1', 'host: x'])))
      .responses;
    expectShapeA(chat!, 400, 'invalid_request');
    const [messages] = (await rawExchange(edgeUrl, request(['POST /v1/messages%zz HTTP/1.1', 'host: x'])))
      .responses;
    expect(messages!.status).toBe(400);
    expect(messages!.headers['x-request-id']).toMatch(/^req_/);
    expect(messages!.json).toEqual({
      type: 'error',
      error: { type: 'invalid_request_error', message: expect.any(String) },
    });
  });

  it('text/plain: 415', async () => {
    const res = await fetch(`${edgeUrl}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey.raw}`, 'content-type': 'text/plain' },
      body: '{"model":"mock-gpt","messages":[]}',
    });
    expect(res.status).toBe(415);
    expect(res.headers.get('x-request-id')).toMatch(/^req_/);
    expect(await res.json()).toMatchObject({ error: { code: 'unsupported_media_type' } });
  });
});

describe('bodies', () => {
  it('50 MB sent without Expect: the client writes all of it and reads the 413', async () => {
    const size = 50 * 1024 * 1024;
    const head = request([
      'POST /v1/chat/completions HTTP/1.1',
      'host: x',
      'content-type: application/json',
      `content-length: ${size}`,
    ]);
    const bytes = Buffer.alloc(Buffer.byteLength(head) + size, 0x20);
    bytes.write(head, 'latin1');
    const { responses } = await rawExchange(edgeUrl, bytes);
    expectShapeA(responses[0]!, 413, 'request_too_large');
  });

  const deep = (depth: number): string => '['.repeat(depth) + ']'.repeat(depth);
  const endpoints: Array<[string, object]> = [
    ['/v1/chat/completions', { model: 'mock-gpt', messages: [{ role: 'user', content: 'hi' }] }],
    ['/v1/completions', { model: 'mock-gpt', prompt: 'hi' }],
    ['/v1/embeddings', { model: 'mock-gpt', input: 'hi' }],
    ['/v1/responses', { model: 'mock-gpt', input: 'hi' }],
    ['/v1/messages', { model: 'mock-claude', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] }],
  ];
  it.each(endpoints)(
    '%s: a field nested 10,000 deep is a 400, before auth, quota and upstream',
    async (path, body) => {
      const sentBefore = gw.mock.requests.filter((r) => r.method === 'POST').length;
      const res = await fetch(`${edgeUrl}${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${apiKey.raw}`, 'content-type': 'application/json' },
        body: `${JSON.stringify(body).slice(0, -1)},"metadata":{"deep":${deep(10_000)}}}`,
      });
      expect(res.status).toBe(400);
      expect(res.headers.get('x-request-id')).toMatch(/^req_/);
      const message = expect.stringMatching(/nests deeper than 128 levels/);
      expect(await res.json()).toEqual(
        path === '/v1/messages'
          ? { type: 'error', error: { type: 'invalid_request_error', message } }
          : { error: { type: 'invalid_request_error', code: 'invalid_request', param: null, message } },
      );
      expect(gw.mock.requests.filter((r) => r.method === 'POST')).toHaveLength(sentBefore);
      // Admission loads the owner's balance into Redis: no balance there, no admission.
      expect(await redis.exists(redisKeys(gw.env.redisPrefix).quotaBalance(apiKey.userId))).toBe(0);
    },
  );
});

describe('an unexpected error', () => {
  /** A chat request whose answer is a 500; its log line must name the request and the cause. */
  async function expectLogged500(body: object, cause: string): Promise<void> {
    const res = await fetch(`${edgeUrl}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey.raw}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    expect(res.status).toBe(500);
    expect(await res.json()).toMatchObject({ error: { code: 'internal_error' } });
    const id = res.headers.get('x-request-id')!;
    expect(id).toMatch(/^req_/);
    const line = logs.lines.find((l) => l.request_id === id && l.level === 'error');
    expect(line).toMatchObject({ code: 'internal_error', err: { message: cause } });
    expect(JSON.stringify(line)).not.toContain(apiKey.raw);
  }

  it('inside the pipeline (rendered without the filter) is logged with the request id and cause', async () => {
    jest.spyOn(edge.get(EdgeTelemetry), 'requestPlanned').mockImplementationOnce(() => {
      throw new TypeError('injected fault in the pipeline');
    });
    await expectLogged500(
      { model: 'mock-gpt', messages: [{ role: 'user', content: 'hi' }] },
      'injected fault in the pipeline',
    );
  });

  it('reaching the exception filter is logged with the request id and cause', async () => {
    jest
      .spyOn(edge.get(ModelRequestService), 'handle')
      .mockRejectedValueOnce(new RangeError('injected fault in a handler'));
    await expectLogged500({}, 'injected fault in a handler');
  });
});
