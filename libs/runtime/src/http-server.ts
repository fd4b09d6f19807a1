import { randomUUID } from 'node:crypto';
import { type IncomingMessage } from 'node:http';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { answerConnectionFaults, type ConnectionFaultRenderer } from './client-error.js';

/** OpenAI-style request ids; never taken from the client, since logs are keyed by them. */
export const newRequestId = (): string => `req_${randomUUID().replaceAll('-', '')}`;

/**
 * A refused body up to this size is still read (and dropped) after the answer, so that a client
 * sending it without `Expect: 100-continue` reads our 413 instead of a reset, and the connection
 * stays usable. Beyond it the connection closes at once; REQUEST_TIMEOUT_MS bounds the time.
 */
export const DISCARD_LIMIT_BYTES = 64 * 1024 * 1024;

/**
 * How long a client may take to send a whole request (headers and body; the answer, a stream
 * included, is not counted). Node's own default, which Fastify turns off: without it a client
 * trickling a body holds its connection for ever.
 */
export const REQUEST_TIMEOUT_MS = 300_000;

/**
 * The longest path parameter the router matches, in characters after decoding (Fastify: 100).
 * Model ids may be 200 characters (the config schema), and Google's `models/{model}:{method}`
 * adds the method; the console's ids are UUIDs. A longer one is refused as 414 `uri_too_long` in
 * the app's shape (frameworkErrors); below it the route's handler answers (404 for an unknown
 * model or resource). The whole URL is bounded by Node's 16 KiB header limit anyway.
 */
export const MAX_PATH_PARAM_LENGTH = 512;

/**
 * The Fastify options the edge and the console share: request ids of our own, no Fastify logger
 * (Nest's is the app log), requests served while draining, path parameters up to
 * MAX_PATH_PARAM_LENGTH, and connection-level errors answered in the app's error shape (see
 * answerConnectionFaults).
 */
export function httpServerOptions(bodyLimit: number, renderFault: ConnectionFaultRenderer) {
  return {
    bodyLimit,
    genReqId: newRequestId,
    requestIdHeader: false,
    logger: false,
    // Nest's adapter answers every request 503 from the start of app.close(), before the drain's
    // shutdown_delay_ms, during which requests must still be served (GracefulDrain adds
    // `connection: close` to them); past the drain deadline their connections are cut anyway.
    return503OnClosing: false,
    requestTimeout: REQUEST_TIMEOUT_MS,
    // Under routerOptions, where Nest's adapter reads it too (a top-level one it would take as 100).
    routerOptions: { maxParamLength: MAX_PATH_PARAM_LENGTH },
    clientErrorHandler: answerConnectionFaults(renderFault, newRequestId),
  } as const;
}

/**
 * Hooks for both apps: every response carries `x-request-id`, and a refused body does not cost the
 * connection when the connection is still in step. Fastify answers every body parser error with
 * `connection: close` in case the client is still sending; when the body was read to its end
 * (invalid JSON) or will be read and dropped by Node after the answer (too large, within
 * DISCARD_LIMIT_BYTES), closing only loses what the client pipelined behind it.
 */
export function installHttpHooks(fastify: FastifyInstance): void {
  fastify.addHook('onRequest', (req: FastifyRequest, reply: FastifyReply, done: () => void) => {
    // On the raw response, where a connection fault in the body finds it (answerConnectionFaults).
    reply.raw.setHeader('x-request-id', req.id);
    done();
  });
  fastify.addHook('onSend', (req: FastifyRequest, reply: FastifyReply, payload: unknown, done) => {
    if (closedForBodyError(reply) && bodyEndsInStep(req.raw)) reply.removeHeader('connection');
    done(null, payload);
  });
}

/**
 * Fastify's parser error path sets the header on the reply; a draining app and Fastify's closing
 * path set it on the raw response, and a 503 while closing means it: those stay.
 */
function closedForBodyError(reply: FastifyReply): boolean {
  return (
    reply.statusCode < 500 &&
    reply.getHeader('connection') === 'close' &&
    reply.raw.getHeader('connection') === undefined
  );
}

function bodyEndsInStep(req: IncomingMessage): boolean {
  if (req.complete) return true;
  const declared = Number(req.headers['content-length']);
  return Number.isSafeInteger(declared) && declared <= DISCARD_LIMIT_BYTES;
}
