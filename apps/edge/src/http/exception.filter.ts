import { type ArgumentsHost, Catch, type ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { asGatewayError, type ErrorCode, GatewayError } from '#libs/protocol';
import { sendError } from './send-error.js';

const BY_STATUS: Record<number, ErrorCode> = {
  404: 'not_found',
  405: 'not_found',
  413: 'request_too_large',
  415: 'unsupported_media_type',
};

/** Everything Nest or Fastify throws outside our handlers (unknown routes, parser errors) in the client's shape. */
@Catch()
export class EdgeExceptionFilter implements ExceptionFilter {
  private readonly logger = new Logger('EdgeExceptionFilter');

  catch(exception: unknown, host: ArgumentsHost): void {
    const reply = host.switchToHttp().getResponse<FastifyReply>();
    sendError(reply, toGatewayError(exception, reply.request.method, reply.request.url, this.logger));
  }
}

export function toGatewayError(
  exception: unknown,
  method: string,
  url: string,
  logger: Logger,
): GatewayError {
  if (exception instanceof GatewayError) return exception;
  const status =
    exception instanceof HttpException
      ? exception.getStatus()
      : (exception as { statusCode?: number }).statusCode;
  if (status === 404)
    return new GatewayError('not_found', `Unknown request URL: ${method} ${url.split('?')[0]}.`);
  if (status === 413) return new GatewayError('request_too_large', 'The request body is too large.');
  if (status === 415)
    return new GatewayError(
      'unsupported_media_type',
      "Request bodies must be JSON ('Content-Type: application/json').",
    );
  if (status !== undefined && BY_STATUS[status])
    return new GatewayError(BY_STATUS[status], 'Request not supported.');
  if (status === 400)
    return new GatewayError('invalid_request', (exception as Error).message || 'Bad request.');
  logger.error(exception instanceof Error ? (exception.stack ?? exception.message) : String(exception));
  return asGatewayError(exception);
}
