import { type FastifyReply } from 'fastify';
import { type GatewayError } from '#libs/protocol';
import { sendError } from '../http/send-error.js';
import { openSse, type SseClient } from './sse-writer.js';

/**
 * Where a model request's answer goes: the HTTP reply of a JSON route, or a WebSocket session's
 * socket (sockets/socket-answer.ts), so one pipeline (`ModelRequest`) serves both. Exactly one of
 * `error`, `body` and `stream` is called per request, after any `header`.
 */
export interface ClientAnswer {
  /** The request failed before any answer: the client's error. */
  error(err: GatewayError): void;
  /** A fact about the answer (the provider, a fallback), where the transport has headers. */
  header(name: string, value: string): void;
  /** A whole answer (JSON), with the status the client is told. */
  body(status: number, body: Buffer | string): void;
  /** A streamed answer: the writer the relay writes the client's SSE text to. */
  stream(): SseClient;
}

/** A JSON route's answer: the reply itself. */
export function replyAnswer(reply: FastifyReply): ClientAnswer {
  return {
    error: (err) => sendError(reply, err),
    header: (name, value) => void reply.header(name, value),
    body: (status, body) => void reply.code(status).type('application/json').send(body),
    stream: () => openSse(reply),
  };
}
