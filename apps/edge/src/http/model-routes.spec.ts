import { Readable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it, jest } from '@jest/globals';
import { Logger } from '@nestjs/common';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { GatewayError } from '#libs/protocol';
import { CLIENT_APIS, type ClientApi, type ClientRequestParts } from '#libs/providers';
import { type ApiHandler, installModelRoutes, MODEL_ROUTES } from './model-routes.js';

interface Call {
  readonly api: ClientApi;
  readonly parts: ClientRequestParts | undefined;
}

/** A pipeline service that answers `{ ok: <its name> }` and records what it was called with. */
class FakeService implements ApiHandler {
  readonly calls: Call[] = [];
  answer: (reply: FastifyReply) => Promise<void> = (reply) => {
    void reply.send({ ok: this.name });
    return Promise.resolve();
  };

  constructor(private readonly name: string) {}

  handle(api: ClientApi, _req: FastifyRequest, reply: FastifyReply, parts?: ClientRequestParts) {
    this.calls.push({ api, parts });
    return this.answer(reply);
  }
}

let fastify: FastifyInstance;
let requests: FakeService;
let counter: FakeService;

beforeEach(async () => {
  fastify = Fastify({ logger: false });
  fastify.setNotFoundHandler((_req, reply) => void reply.code(404).send({ notFound: true }));
  requests = new FakeService('requests');
  counter = new FakeService('counter');
  installModelRoutes(fastify, { requests, counter });
  await fastify.ready();
});

afterEach(() => fastify.close());

const post = (url: string, headers: Record<string, string> = {}) =>
  fastify.inject({ method: 'POST', url, payload: {}, headers });

describe('the model routes', () => {
  it('each API on its path, to the service that serves it', async () => {
    const cases: Array<[string, FakeService, ClientApi]> = [
      ['/v1/chat/completions', requests, CLIENT_APIS.chat],
      ['/v1/completions', requests, CLIENT_APIS.completions],
      ['/v1/responses', requests, CLIENT_APIS.responses],
      ['/v1/embeddings', requests, CLIENT_APIS.embeddings],
      ['/v1/messages?beta=true', requests, CLIENT_APIS.messages],
      ['/v1/messages/count_tokens', counter, CLIENT_APIS.count_tokens],
    ];
    for (const [url, service, api] of cases) {
      const res = await post(url);
      expect(res.statusCode).toBe(200);
      expect(service.calls.at(-1)).toEqual({ api, parts: undefined });
    }
    expect(MODEL_ROUTES).toHaveLength(cases.length + 1);
  });

  it('a model method: the model is what precedes the last colon, the query goes along', async () => {
    await post('/v1beta/models/llama3:8b:streamGenerateContent?alt=sse&key=k');
    expect(requests.calls).toEqual([
      {
        api: CLIENT_APIS.generate_content,
        parts: {
          params: { model: 'llama3:8b', action: 'streamGenerateContent' },
          query: { alt: 'sse', key: 'k' },
        },
      },
    ]);
    await post('/v1beta/models/m:countTokens');
    expect(counter.calls).toEqual([
      {
        api: CLIENT_APIS.count_content_tokens,
        parts: { params: { model: 'm', action: 'countTokens' }, query: {} },
      },
    ]);
  });

  it('an unknown method, or none, is 404 not_found in the path’s error shape', async () => {
    for (const url of [
      '/v1beta/models/m:deleteEverything',
      '/v1beta/models/m',
      '/v1beta/models/:generateContent',
    ]) {
      const res = await post(url);
      expect(res.statusCode).toBe(404);
      expect(res.json()).toMatchObject({ error: { code: 404, status: 'NOT_FOUND' } });
    }
    expect(requests.calls).toEqual([]);
  });

  it('an empty model method goes to the not-found handler, as Nest’s adapter sent it', async () => {
    const res = await post('/v1beta/models/');
    expect(res.json()).toEqual({ notFound: true });
  });

  it('a handler that fails is answered as the exception filter answers, in the client’s shape', async () => {
    requests.answer = () => Promise.reject(new GatewayError('invalid_request', 'No.'));
    const a = await post('/v1/chat/completions');
    expect(a.statusCode).toBe(400);
    expect(a.json()).toMatchObject({ error: { code: 'invalid_request', message: 'No.' } });
    const b = await post('/v1/messages', { 'anthropic-version': '2023-06-01' });
    expect(b.json()).toMatchObject({
      type: 'error',
      error: { type: 'invalid_request_error', message: 'No.' },
    });
    requests.answer = () => Promise.reject(new RangeError('a bug'));
    const logged = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    const c = await post('/v1/chat/completions');
    expect(c.statusCode).toBe(500);
    expect(c.json()).toMatchObject({ error: { code: 'internal_error' } });
    expect(logged).toHaveBeenCalledWith(
      expect.objectContaining({
        code: 'internal_error',
        request_id: c.headers['x-request-id'] ?? expect.any(String),
      }),
    );
    logged.mockRestore();
  });

  it('a stream sent before the handler settles is not cut short by an empty answer', async () => {
    // Fastify answers an empty body for an async handler that settles before a stream's first
    // byte; Nest's handler waited for the response, and so does this one.
    requests.answer = (reply) => {
      async function* slow() {
        await new Promise((r) => setTimeout(r, 20));
        yield 'data: 1\n\n';
        yield 'data: 2\n\n';
      }
      void reply.type('text/event-stream').send(Readable.from(slow(), { objectMode: false }));
      return Promise.resolve();
    };
    const res = await post('/v1/chat/completions');
    expect(res.headers['content-length']).toBeUndefined();
    expect(res.body).toBe('data: 1\n\ndata: 2\n\n');
  });

  it('looks the service’s handle up on every request (so a test can spy on it)', async () => {
    const original = requests.handle.bind(requests);
    let spied = 0;
    requests.handle = (...args) => {
      spied++;
      return original(...args);
    };
    await post('/v1/chat/completions');
    expect(spied).toBe(1);
  });
});
