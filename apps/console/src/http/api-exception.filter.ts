import { type ArgumentsHost, Catch, type ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
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

/**
 * Maps anything thrown (ours, Nest's, Fastify's body parser's) to `{ error: { code, message } }`.
 * Unknown errors are logged with their stack and answered with a bare 500.
 */
export function toApiError(err: unknown, req: { method: string; url: string }): ApiError {
  if (err instanceof ApiError) return err;
  if (err instanceof HttpException) {
    const status = err.getStatus();
    const code = BY_STATUS[status];
    if (code === 'not_found') return new ApiError(code, `No route ${req.method} ${req.url.split('?')[0]}`);
    if (code) return new ApiError(code, err.message);
  }
  const status = (err as { statusCode?: unknown }).statusCode;
  if (typeof status === 'number' && BY_STATUS[status]) {
    // Fastify's own errors (body too large, bad content type): their messages are safe to show.
    return new ApiError(BY_STATUS[status], (err as Error).message);
  }
  logger.error(
    `${req.method} ${req.url.split('?')[0]} failed`,
    err instanceof Error ? err.stack : String(err),
  );
  return new ApiError('internal_error', 'Something went wrong on our side. Please try again.');
}

export function sendApiError(reply: FastifyReply, err: ApiError): void {
  void reply.code(err.status).headers(err.headers).send(errorBody(err));
}

@Catch()
export class ApiExceptionFilter implements ExceptionFilter {
  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const req = http.getRequest<FastifyRequest>();
    sendApiError(http.getResponse<FastifyReply>(), toApiError(exception, req));
  }
}
