import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { type NestFastifyApplication } from '@nestjs/platform-fastify';
import { createConsoleApp } from '../../apps/console/src/console.app.js';
import { GroupsController } from '../../apps/console/src/groups/groups.controller.js';
import { GracefulDrain } from '#libs/runtime';
import { type Gateway, startGateway } from '../support/gateway.js';
import { rawExchange, type RawResponse } from '../support/raw-http.js';
import { until } from '../support/wait.js';
import { type AppLogs, captureAppLogs } from './telemetry-logs.js';

/**
 * The console's HTTP layer under what no browser sends: the same faults as the edge's
 * (edge-http-faults.e2e-spec.ts), answered in the console's own error shape with a request id.
 */
const TOKEN = 'test-admin-token-0123456789abcdef';

let gw: Gateway;
let app: NestFastifyApplication;
let url: string;
let logs: AppLogs;

/**
 * A handler that can be made to throw (a bug stand-in). Spied before the app exists, since Nest
 * binds handlers at init, with the route metadata Nest reads from the method copied over.
 */
const original = GroupsController.prototype.allGroups;
const allGroups = jest.spyOn(GroupsController.prototype, 'allGroups');
for (const key of Reflect.getMetadataKeys(original) as unknown[])
  Reflect.defineMetadata(key, Reflect.getMetadata(key, original), allGroups);

beforeAll(async () => {
  gw = await startGateway('console-http-faults');
  app = await createConsoleApp({ ...gw.env, consoleAdminToken: TOKEN }, gw.config);
  await app.listen(0, '127.0.0.1');
  url = (await app.getUrl()).replace('[::1]', '127.0.0.1');
  logs = captureAppLogs();
}, 30_000);

afterAll(async () => {
  await app?.close();
  await gw?.close();
});

const CRLF = '\r\n';
const request = (head: string[], body = ''): string => head.join(CRLF) + CRLF + CRLF + body;

function expectConsoleError(res: RawResponse, status: number, code: string): void {
  expect(res.status).toBe(status);
  expect(res.headers['content-type']).toMatch(/^application\/json/);
  expect(res.headers['x-request-id']).toMatch(/^req_[0-9a-f]{32}$/);
  expect(res.json).toEqual({ error: { code, message: expect.any(String) } });
}

it('a malformed request in a pipeline is answered, so is the next one, and both leave the drain tracker', async () => {
  const drain = app.get(GracefulDrain);
  const signIn = ['POST /api/auth/sign-in HTTP/1.1', 'host: x', 'content-type: application/json'];
  const exchange = await rawExchange(
    url,
    request([...signIn, 'content-length: 4'], '{bad') + request(['GET /healthz HTTP/1.1', 'host: x']),
    2,
  );
  expect(exchange.responses).toHaveLength(2);
  expectConsoleError(exchange.responses[0]!, 400, 'invalid_request');
  expect(exchange.responses[1]!.status).toBe(200);
  await until(() => drain.inFlight === 0, 2_000, 'the tracker to empty');
});

describe('bytes Node refuses before any request exists', () => {
  const cases: Array<[string, string, number, string]> = [
    [
      'over-long headers',
      request(['GET /api/session HTTP/1.1', 'host: x', `x-big: ${'a'.repeat(20_000)}`]),
      431,
      'request_header_too_large',
    ],
    [
      'Content-Length with Transfer-Encoding',
      request(
        ['POST /api/keys HTTP/1.1', 'host: x', 'content-length: 4', 'transfer-encoding: chunked'],
        '0\r\n\r\n',
      ),
      400,
      'invalid_request',
    ],
    ['a bare LF', 'GET /api/session HTTP/1.1\nhost: x\n\n', 400, 'invalid_request'],
    [
      'a NUL in a header',
      request(['GET /api/session HTTP/1.1', 'host: x', 'x-a: a\0b']),
      400,
      'invalid_request',
    ],
  ];
  it.each(cases)(
    '%s: the console shape with a request id, then the connection closes',
    async (_, bytes, status, code) => {
      const { responses, closedByServer } = await rawExchange(url, bytes, 2);
      expect(responses).toHaveLength(1);
      expectConsoleError(responses[0]!, status, code);
      expect(closedByServer).toBe(true);
    },
  );
});

it('a path Fastify cannot decode: 400 in the console shape with its request id', async () => {
  const [res] = (await rawExchange(url, request(['GET /api/ke%zzys HTTP/1.1', 'host: x']))).responses;
  expectConsoleError(res!, 400, 'invalid_request');
});

it('a body nested 10,000 deep: 400 at parse time', async () => {
  const deep = '['.repeat(10_000) + ']'.repeat(10_000);
  const res = await fetch(`${url}/api/admin/users`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
    body: `{"email":"deep@example.com","password":"correct horse battery staple","x":${deep}}`,
  });
  expect(res.status).toBe(400);
  expect(res.headers.get('x-request-id')).toMatch(/^req_/);
  expect(await res.json()).toEqual({
    error: { code: 'invalid_request', message: 'The JSON body nests deeper than 128 levels.' },
  });
});

it('takes the bearer scheme in any case, as the edge does (RFC 7235)', async () => {
  for (const scheme of ['bearer', 'BEARER']) {
    const res = await fetch(`${url}/api/admin/groups`, { headers: { authorization: `${scheme} ${TOKEN}` } });
    expect(res.status).toBe(200);
  }
});

it('logs an unexpected 500 with its request id and cause', async () => {
  allGroups.mockImplementationOnce(() => {
    throw new TypeError('injected fault in the console');
  });
  const res = await fetch(`${url}/api/admin/groups`, { headers: { authorization: `Bearer ${TOKEN}` } });
  expect(res.status).toBe(500);
  expect(await res.json()).toEqual({ error: { code: 'internal_error', message: expect.any(String) } });
  const id = res.headers.get('x-request-id')!;
  expect(id).toMatch(/^req_/);
  const line = logs.lines.find((l) => l.request_id === id && l.level === 'error');
  expect(line).toMatchObject({ code: 'internal_error', err: { message: 'injected fault in the console' } });
});
