import { describe, expect, it } from '@jest/globals';
import { asGatewayError, ERROR_CATALOGUE, GatewayError } from './errors.js';
import { clientFormatOf, renderError } from './render.js';

describe('error rendering', () => {
  it('renders shape A with type, code, message and param', () => {
    const r = renderError(new GatewayError('invalid_api_key', 'Invalid API key provided.'), 'openai');
    expect(r.status).toBe(401);
    expect(JSON.parse(r.body)).toEqual({
      error: {
        message: 'Invalid API key provided.',
        type: 'invalid_request_error',
        param: null,
        code: 'invalid_api_key',
      },
    });
  });

  it('renders shape B for the messages endpoint', () => {
    const r = renderError(new GatewayError('invalid_api_key', 'Invalid API key provided.'), 'anthropic');
    expect(JSON.parse(r.body)).toEqual({
      type: 'error',
      error: { type: 'authentication_error', message: 'Invalid API key provided.' },
    });
  });

  it('uses insufficient_quota as type and code, as SPEC says', () => {
    const body = JSON.parse(
      renderError(new GatewayError('insufficient_quota', 'Quota exceeded.'), 'openai').body,
    );
    expect(body.error.type).toBe('insufficient_quota');
    expect(body.error.code).toBe('insufficient_quota');
  });

  it('adds retry-after when known', () => {
    const r = renderError(
      new GatewayError('rate_limit_exceeded', 'slow down', { retryAfterSeconds: 7 }),
      'openai',
    );
    expect(r.headers['retry-after']).toBe('7');
  });

  it('hides internal errors', () => {
    const err = asGatewayError(new Error('password=hunter2 at db.ts:12'));
    expect(err.code).toBe('internal_error');
    expect(err.message).not.toMatch(/hunter2/);
  });

  it('picks the format by path', () => {
    expect(clientFormatOf('/v1/messages?beta=true')).toBe('anthropic');
    expect(clientFormatOf('/v1/chat/completions')).toBe('openai');
    expect(clientFormatOf('/v1beta/models/gemini-2.5-flash:generateContent?key=k')).toBe('google');
  });

  it("renders Google's shape for the Gemini API: HTTP code and google.rpc status name", () => {
    const bad = renderError(new GatewayError('invalid_request', 'contents is not specified'), 'google');
    expect(bad.status).toBe(400);
    expect(JSON.parse(bad.body)).toEqual({
      error: { code: 400, message: 'contents is not specified', status: 'INVALID_ARGUMENT' },
    });
    const key = JSON.parse(renderError(new GatewayError('invalid_api_key', 'no'), 'google').body);
    expect(key.error).toMatchObject({ code: 401, status: 'UNAUTHENTICATED' });
    const quota = JSON.parse(renderError(new GatewayError('insufficient_quota', 'spent'), 'google').body);
    expect(quota.error).toMatchObject({ code: 429, status: 'RESOURCE_EXHAUSTED' });
    const down = JSON.parse(renderError(new GatewayError('no_available_provider', 'none'), 'google').body);
    expect(down.error.status).toBe('UNAVAILABLE');
  });

  it('answers Anthropic clients of the shared Models path in their shape, by header', () => {
    expect(clientFormatOf('/v1/messages/count_tokens', {})).toBe('anthropic');
    expect(clientFormatOf('/v1/models', { 'anthropic-version': '2023-06-01' })).toBe('anthropic');
    expect(clientFormatOf('/v1/models/x?limit=20', { 'x-api-key': 'sk-1' })).toBe('anthropic');
    expect(clientFormatOf('/v1/models', { authorization: 'Bearer sk-1' })).toBe('openai');
    // Only the Models path is shared: an OpenAI endpoint keeps shape A whatever the headers.
    expect(clientFormatOf('/v1/chat/completions', { 'anthropic-version': '2023-06-01' })).toBe('openai');
  });

  it('gives every catalogue entry an error status', () => {
    for (const spec of Object.values(ERROR_CATALOGUE)) expect(spec.status).toBeGreaterThanOrEqual(400);
  });
});
