import { request as httpRequest } from 'node:http';
import { type AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import Fastify, { type FastifyInstance } from 'fastify';
import { GatewayError } from '#libs/protocol';
import {
  type ClientSocket,
  type EdgeRoute,
  jobRoute,
  jsonRoute,
  type JsonServe,
  sessionRoute,
  uploadRoute,
  type UploadServe,
} from './endpoint-kinds.js';
import { sendException } from './exception.filter.js';
import { installJsonParser } from './json-body.js';
import { MODEL_ROUTES } from './model-routes.js';
import { installRoutes } from './route-install.js';

/** What the routes below serve with: a note of every session's messages. */
interface Services {
  readonly heard: string[];
}

const LIMIT = 1024;

/** Reads an upload to its end and answers what came: its media type and its size. */
const readUpload: UploadServe<Services> = async (_s, _req, body, reply) => {
  let bytes = 0;
  for await (const chunk of body.stream) bytes += (chunk as Buffer).length;
  void reply.send({ mediaType: body.mediaType, bytes, declared: body.declaredBytes });
};

const echoJson: JsonServe<Services> = (_s, req, reply) => {
  void reply.send({ got: req.body });
  return Promise.resolve();
};

/** A session answering each message with its echo; refused at the handshake without the key. */
const echoSession = sessionRoute<Services>(
  '/v1/echo',
  (_s, req) =>
    req.headers.authorization === 'Bearer ok'
      ? Promise.resolve()
      : Promise.reject(new GatewayError('invalid_api_key', 'No key.')),
  (s, _req, socket: ClientSocket) => {
    socket.onMessage((data) => {
      s.heard.push(data.toString());
      socket.sendText(`echo ${data.toString()}`);
    });
    return Promise.resolve();
  },
);

const ROUTES: ReadonlyArray<EdgeRoute<Services>> = [
  jsonRoute('/v1/json', echoJson),
  uploadRoute('/v1/files', ['multipart/form-data'], readUpload),
  uploadRoute('/v1/messages/audio', ['application/octet-stream'], readUpload),
  jobRoute('/v1/jobs', (_s, req) =>
    Promise.resolve({ status: 200, body: { id: 'job_1', status: 'validating', input: req.body } }),
  ),
  echoSession,
];

let fastify: FastifyInstance;
let services: Services;

beforeEach(async () => {
  fastify = Fastify({ logger: false, bodyLimit: LIMIT });
  installJsonParser(fastify);
  // As Nest's exception filter answers the parser's and body limit's errors in the edge.
  fastify.setErrorHandler((err, _req, reply) => sendException(reply, err));
  services = { heard: [] };
  installRoutes(fastify, services, ROUTES);
  await fastify.ready();
});

afterEach(() => fastify.close());

const MULTIPART = 'multipart/form-data; boundary=b';
const multipart = (size: number): string =>
  `--b\r\ncontent-disposition: form-data; name="file"; filename="a.jsonl"\r\n\r\n${'x'.repeat(size)}\r\n--b--\r\n`;

describe('endpoint kinds: each route is served by its kind’s adapter', () => {
  it('the model routes are all JSON request/reply', () => {
    expect(new Set(MODEL_ROUTES.map((r) => `${r.kind} ${r.method}`))).toEqual(new Set(['json POST']));
  });

  it('a JSON route still takes JSON only: multipart and binary bodies are 415 in the client’s shape', async () => {
    expect((await fastify.inject({ method: 'POST', url: '/v1/json', payload: { a: 1 } })).json()).toEqual({
      got: { a: 1 },
    });
    for (const type of [MULTIPART, 'application/octet-stream', 'text/plain']) {
      const res = await fastify.inject({
        method: 'POST',
        url: '/v1/json',
        headers: { 'content-type': type },
        payload: multipart(10),
      });
      expect(res.statusCode).toBe(415);
      expect(res.json()).toMatchObject({ error: { code: 'unsupported_media_type' } });
    }
  });

  it('an upload within the limit reaches its handler as a stream, multipart or binary', async () => {
    const body = multipart(500);
    const a = await fastify.inject({
      method: 'POST',
      url: '/v1/files',
      headers: { 'content-type': MULTIPART },
      payload: body,
    });
    expect(a.json()).toEqual({ mediaType: 'multipart/form-data', bytes: body.length, declared: body.length });
    const b = await fastify.inject({
      method: 'POST',
      url: '/v1/messages/audio',
      headers: { 'content-type': 'application/octet-stream' },
      payload: Buffer.alloc(LIMIT),
    });
    expect(b.json()).toEqual({ mediaType: 'application/octet-stream', bytes: LIMIT, declared: LIMIT });
  });

  it('an upload declared over the limit is refused before it is read: 413 in the client’s shape', async () => {
    const a = await fastify.inject({
      method: 'POST',
      url: '/v1/files',
      headers: { 'content-type': MULTIPART },
      payload: multipart(LIMIT),
    });
    expect(a.statusCode).toBe(413);
    expect(a.json()).toMatchObject({ error: { type: 'invalid_request_error', code: 'request_too_large' } });
    // Under /v1/messages the client reads the other error shape.
    const b = await fastify.inject({
      method: 'POST',
      url: '/v1/messages/audio',
      headers: { 'content-type': 'application/octet-stream', 'anthropic-version': '2023-06-01' },
      payload: Buffer.alloc(LIMIT + 1),
    });
    expect(b.statusCode).toBe(413);
    expect(b.json()).toEqual({
      type: 'error',
      error: { type: 'request_too_large', message: 'The request body is too large.' },
    });
  });

  it('a chunked upload fails at the first byte past the limit: 413, and the connection is not kept', async () => {
    const chunks = [Buffer.alloc(600), Buffer.alloc(600), Buffer.alloc(600)];
    const res = await fastify.inject({
      method: 'POST',
      url: '/v1/messages/audio',
      headers: { 'content-type': 'application/octet-stream' },
      payload: Readable.from(chunks),
    });
    expect(res.statusCode).toBe(413);
    expect(res.json()).toMatchObject({ type: 'error', error: { type: 'request_too_large' } });
    expect(res.headers.connection).toBe('close');
  });

  it('an upload route refuses JSON and bodiless requests with a 415 naming what it takes', async () => {
    const json = await fastify.inject({ method: 'POST', url: '/v1/files', payload: { a: 1 } });
    const none = await fastify.inject({ method: 'POST', url: '/v1/files' });
    for (const res of [json, none]) {
      expect(res.statusCode).toBe(415);
      expect(res.json()).toMatchObject({
        error: {
          code: 'unsupported_media_type',
          message: 'This endpoint takes multipart/form-data bodies.',
        },
      });
    }
  });

  it('a job is accepted now: its handler’s acceptance is the answer; it reads JSON like a JSON route', async () => {
    const res = await fastify.inject({ method: 'POST', url: '/v1/jobs', payload: { lines: 2 } });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ id: 'job_1', status: 'validating', input: { lines: 2 } });
    const text = await fastify.inject({
      method: 'POST',
      url: '/v1/jobs',
      headers: { 'content-type': 'text/plain' },
      payload: 'x',
    });
    expect(text.statusCode).toBe(415);
  });
});

describe('the WebSocket kind: a GET upgraded after its handshake is admitted', () => {
  const listen = async (): Promise<string> => {
    await fastify.listen({ port: 0, host: '127.0.0.1' });
    return `127.0.0.1:${(fastify.server.address() as AddressInfo).port}`;
  };

  it('a session carries many messages over one connection', async () => {
    const host = await listen();
    const socket = new WebSocket(`ws://${host}/v1/echo`, {
      headers: { authorization: 'Bearer ok' },
    } as never);
    const answers: string[] = [];
    await new Promise<void>((resolve, reject) => {
      socket.onerror = () => reject(new Error('socket failed'));
      socket.onopen = () => ['one', 'two'].forEach((m) => socket.send(m));
      socket.onmessage = (e) => {
        answers.push(String(e.data));
        if (answers.length === 2) resolve();
      };
    });
    socket.close();
    expect(answers).toEqual(['echo one', 'echo two']);
    expect(services.heard).toEqual(['one', 'two']);
  });

  it('a refused handshake is an HTTP error in the client’s shape, and no socket opens', async () => {
    const host = await listen();
    const [hostname, port] = host.split(':');
    const status = await new Promise<{ code: number; body: string }>((resolve, reject) => {
      const req = httpRequest({
        hostname,
        port: Number(port),
        path: '/v1/echo',
        headers: {
          connection: 'Upgrade',
          upgrade: 'websocket',
          'sec-websocket-version': '13',
          'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==',
        },
      });
      req.on('upgrade', () => reject(new Error('upgraded without a key')));
      req.on('response', (res) => {
        let body = '';
        res.on('data', (c: Buffer) => (body += c.toString()));
        res.on('end', () => resolve({ code: res.statusCode ?? 0, body }));
      });
      req.on('error', reject);
      req.end();
    });
    expect(status.code).toBe(401);
    expect(JSON.parse(status.body)).toMatchObject({ error: { code: 'invalid_api_key' } });
  });

  it('a plain GET of a session route is a 404 in the client’s shape, once past the handshake check', async () => {
    const anonymous = await fastify.inject({ method: 'GET', url: '/v1/echo' });
    expect(anonymous.statusCode).toBe(401);
    const res = await fastify.inject({
      method: 'GET',
      url: '/v1/echo',
      headers: { authorization: 'Bearer ok' },
    });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toMatchObject({
      error: { code: 'not_found', message: '/v1/echo takes a WebSocket upgrade.' },
    });
  });
});

describe('the route table is typed by kind', () => {
  it('a handler of one kind cannot serve a route of another (checked by the compiler)', () => {
    // @ts-expect-error a JSON handler takes the reply where an upload handler takes the body
    uploadRoute<Services>('/x', ['application/octet-stream'], echoJson);
    // @ts-expect-error an upload handler cannot serve a JSON route
    jsonRoute<Services>('/x', readUpload);
    // @ts-expect-error a job handler returns its acceptance, a JSON handler answers the reply itself
    jobRoute<Services>('/x', echoJson);
    // @ts-expect-error a session handler takes the socket, not the reply
    jsonRoute<Services>('/x', echoSession.serve);
    expect(ROUTES.map((r) => r.kind)).toEqual(['json', 'upload', 'upload', 'job', 'websocket']);
  });
});
