import { describe, expect, it } from '@jest/globals';
import { NotFoundException } from '@nestjs/common';
import { toApiError } from './api-exception.filter.js';

const req = { method: 'GET', url: '/api/keys?x=1' };
const socketError = (code: string): Error =>
  Object.assign(new Error(`connect ${code} 127.0.0.1:6379`), { code, syscall: 'connect' });

describe('toApiError', () => {
  it('answers a store out of reach 503 service_unavailable with retry-after, keeping the cause', () => {
    const causes = [
      socketError('ECONNREFUSED'),
      Object.assign(new Error('Reached the max retries per request limit'), {
        name: 'MaxRetriesPerRequestError',
      }),
      new Error("Stream isn't writeable and enableOfflineQueue options is false"),
      new Error('Connection terminated unexpectedly'),
      Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' }),
    ];
    for (const cause of causes) {
      const err = toApiError(cause, req);
      expect({ status: err.status, code: err.code, headers: err.headers, cause: err.cause }).toEqual({
        status: 503,
        code: 'service_unavailable',
        headers: { 'retry-after': '1' },
        cause,
      });
      expect(err.message).not.toContain('127.0.0.1');
    }
  });

  it('a path parameter over the router limit (Fastify status 414): 414 uri_too_long, no path echoed', () => {
    const fastify = Object.assign(
      new URIError(`'/api/keys/${'a'.repeat(600)}' is exceeding the max param length`),
      {
        code: 'FST_ERR_MAX_PARAM_LENGTH',
        statusCode: 414,
      },
    );
    const err = toApiError(fastify, req);
    expect({ status: err.status, code: err.code }).toEqual({ status: 414, code: 'uri_too_long' });
    expect(err.message.length).toBeLessThan(100);
  });

  it('keeps a bug a 500 and an unknown route a 404', () => {
    expect(toApiError(new TypeError('boom'), req).code).toBe('internal_error');
    expect(toApiError(new NotFoundException(), req)).toMatchObject({ status: 404, code: 'not_found' });
  });
});
