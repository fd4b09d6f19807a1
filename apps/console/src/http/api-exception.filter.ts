import { type ArgumentsHost, Catch, type ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { isDatabaseUnreachable } from '#libs/db';
import { isConnectionError } from '#libs/redis';
import { CONNECTION_FAULT_MESSAGES, type ConnectionFault } from '#libs/runtime';
import { ApiError, type ApiErrorCode, errorBody } from './api-error.js';

const BY_STATUS: Readonly<Record<number, ApiErrorCode>> = {
  400: 'invalid_request',
  401: 'unauthenticated',
  403: 'forbidden',
  404: 'not_found',
  409: 'conflict',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
  429: 'rate_limited',
};

const logger = new Logger('ConsoleApi');

/** What a client may retry after, in seconds, when a store is out of reach (the edge's too). */
const OUTAGE_RETRY_AFTER_SECONDS = 1;

/**
 * Redis (sessions, sign-in throttle) or Postgres (users, keys, logs) out of reach: the outside
 * failing, not a bug. Redis's and any socket's by the test the apps' outage logging uses
 * (`isConnectionError`), Postgres's own words by `isDatabaseUnreachable`.
 */
function isStoreOutage(err: unknown): boolean {
  // Not `instanceof Error`: a socket error comes from Node's core, another realm under Jest.
  if (typeof err !== 'object' || err === null || typeof (err as Error).message !== 'string') return false;
  return isConnectionError(err as Error) || isDatabaseUnreachable(err as Error);
}

/**
 * Maps anything thrown (ours, Nest's, Fastify's body parser's) to `{ error: { code, message } }`.
 * A store out of reach is a 503 with retry-after. Unknown errors become a bare 500 that keeps
 * them as its cause, for the log (sendApiError).
 */
export function toApiError(err: unknown, req: { method: string; url: string }): ApiError {
  if (err instanceof ApiError) return err;
  if (isStoreOutage(err)) {
    return new ApiError(
      'service_unavailable',
      'The console is temporarily unavailable. Please try again shortly.',
      { 'retry-after': String(OUTAGE_RETRY_AFTER_SECONDS) },
      { cause: err },
    );
  }
  if (err instanceof HttpException) {
    const status = err.getStatus();
    const code = BY_STATUS[status];
    if (code === 'not_found') return new ApiError(code, `No route ${req.method} ${req.url.split('?')[0]}`);
    if (code) return new ApiError(code, err.message);
  }
  const status = (err as { statusCode?: unknown }).statusCode;
  // Fastify's message repeats the whole path: a fixed one instead.
  if (status === 414) return new ApiError('uri_too_long', 'A path parameter of the request URL is too long.');
  if (typeof status === 'number' && BY_STATUS[status]) {
    // Fastify's own errors (body too large, bad content type): their messages are safe to show.
    return new ApiError(BY_STATUS[status], (err as Error).message);
  }
  return new ApiError(
    'internal_error',
    'Something went wrong on our side. Please try again.',
    {},
    { cause: err },
  );
}

/**
 * The one place a console error becomes a response, with the request id. A 5xx is logged here
 * with the request id and its cause, which the client never sees: an internal error (a bug) at
 * error level, the other 5xx (a store or the router out of reach) as warnings, as on the edge.
 */
export function sendApiError(reply: FastifyReply, err: ApiError): void {
  if (err.status >= 500) {
    const { id, method, url } = reply.request;
    const line = {
      msg: `${method} ${url.split('?')[0]} answered ${err.status} ${err.code}`,
      request_id: id,
      code: err.code,
      // pino's err serializer writes the type, message and stack (and causes of causes).
      err: err.cause ?? err,
    };
    if (err.code === 'internal_error') logger.error(line);
    else logger.warn(line);
  }
  void reply
    .code(err.status)
    .headers({ ...err.headers, 'x-request-id': reply.request.id })
    .send(errorBody(err));
}

const FAULT_CODES: Readonly<Record<ConnectionFault, ApiErrorCode>> = {
  header_too_large: 'request_header_too_large',
  timeout: 'request_timeout',
  malformed: 'invalid_request',
};

/** Node refused the bytes before any request existed; the answer is in the console's shape. */
export function renderConnectionFault(fault: ConnectionFault): { status: number; body: string } {
  const err = new ApiError(FAULT_CODES[fault], CONNECTION_FAULT_MESSAGES[fault]);
  return { status: err.status, body: JSON.stringify(errorBody(err)) };
}

@Catch()
export class ApiExceptionFilter implements ExceptionFilter {
  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const req = http.getRequest<FastifyRequest>();
    sendApiError(http.getResponse<FastifyReply>(), toApiError(exception, req));
  }
}
