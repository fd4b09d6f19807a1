import { type ArgumentsHost, Catch, type ExceptionFilter, HttpException } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { asGatewayError, GatewayError } from '#libs/protocol';
import { sendError } from './send-error.js';

/** Everything Nest or Fastify throws outside our handlers (unknown routes, parser errors) in the client's shape. */
@Catch()
export class EdgeExceptionFilter implements ExceptionFilter {
  catch(exception: unknown, host: ArgumentsHost): void {
    sendException(host.switchToHttp().getResponse<FastifyReply>(), exception);
  }
}

/** What the filter answers for an exception; the model routes, which Nest does not serve, answer the same. */
export function sendException(reply: FastifyReply, exception: unknown): void {
  sendError(reply, toGatewayError(exception, reply.request.method, reply.request.url));
}

/** Nest's and Fastify's errors by status; anything else is an internal error (logged by sendError). */
export function toGatewayError(exception: unknown, method: string, url: string): GatewayError {
  if (exception instanceof GatewayError) return exception;
  const status =
    exception instanceof HttpException
      ? exception.getStatus()
      : (exception as { statusCode?: number }).statusCode;
  if (status === 404)
    return new GatewayError('not_found', `Unknown request URL: ${method} ${url.split('?')[0]}.`);
  if (status === 405) return new GatewayError('not_found', 'Request not supported.');
  if (status === 413) return new GatewayError('request_too_large', 'The request body is too large.');
  // Fastify's message repeats the whole path: a fixed one instead.
  if (status === 414)
    return new GatewayError('uri_too_long', 'A path parameter of the request URL is too long.');
  if (status === 415)
    return new GatewayError(
      'unsupported_media_type',
      "Request bodies must be JSON ('Content-Type: application/json').",
    );
  if (status === 400)
    return new GatewayError('invalid_request', (exception as Error).message || 'Bad request.');
  return asGatewayError(exception);
}
