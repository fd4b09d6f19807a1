import { Logger } from '@nestjs/common';
import { type FastifyReply } from 'fastify';
import {
  clientFormatOf,
  DEFAULT_CLIENT_FORMAT,
  type ErrorCode,
  GatewayError,
  renderError,
} from '#libs/protocol';
import { CONNECTION_FAULT_MESSAGES, type ConnectionFault } from '#libs/runtime';

const logger = new Logger('EdgeErrors');

/**
 * The one place an error becomes a response (the exception filter, the model pipeline and the
 * models list all end here), in the client's shape with its request id. A 5xx is the gateway's
 * own failure: it is logged here with the request id and its cause, which the client never sees.
 */
export function sendError(reply: FastifyReply, err: GatewayError): void {
  if (err.status >= 500) logServerError(reply, err);
  const rendered = renderError(err, clientFormatOf(reply.request.url, reply.request.headers));
  void reply
    .code(rendered.status)
    .headers({ ...rendered.headers, 'x-request-id': reply.request.id })
    .send(rendered.body);
}

function logServerError(reply: FastifyReply, err: GatewayError): void {
  const { id, method, url } = reply.request;
  const line = {
    msg: `${method} ${url.split('?')[0]} answered ${err.status} ${err.code}`,
    request_id: id,
    code: err.code,
    // pino's err serializer writes the type, message and stack (and causes of causes).
    err: err.cause ?? err,
  };
  // An internal error is a bug; the other 5xx are the outside failing (providers, Redis, Postgres).
  if (err.code === 'internal_error') logger.error(line);
  else logger.warn(line);
}

const FAULT_CODES: Readonly<Record<ConnectionFault, ErrorCode>> = {
  header_too_large: 'request_header_too_large',
  timeout: 'request_timeout',
  malformed: 'invalid_request',
};

/** Node refused the bytes before any request existed: no path to go by, so shape A. */
export function renderConnectionFault(fault: ConnectionFault): { status: number; body: string } {
  const err = new GatewayError(FAULT_CODES[fault], CONNECTION_FAULT_MESSAGES[fault]);
  const { status, body } = renderError(err, DEFAULT_CLIENT_FORMAT);
  return { status, body };
}
