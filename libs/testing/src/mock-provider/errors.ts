import { geminiFailure, geminiInvalid } from './gemini-errors.js';
import type { JsonReply, Vendor } from './types.js';

/** `{error: {message, type, param, code}}`, OpenAI's error body. */
export function openAIError(
  status: number,
  message: string,
  type: string,
  extra: { param?: string | null; code?: string | null } = {},
): JsonReply {
  return {
    kind: 'json',
    status,
    body: { error: { message, type, param: extra.param ?? null, code: extra.code ?? null } },
  };
}

/** `{type: 'error', error: {type, message}}`, Anthropic's error body (request_id added by the server). */
export function anthropicError(status: number, type: string, message: string): JsonReply {
  return { kind: 'json', status, body: { type: 'error', error: { type, message } } };
}

export function invalidRequest(vendor: Vendor, message: string, param: string | null = null): JsonReply {
  if (vendor === 'gemini') return geminiInvalid(message);
  return vendor === 'openai'
    ? openAIError(400, message, 'invalid_request_error', { param })
    : anthropicError(400, 'invalid_request_error', message);
}

/** The body a vendor sends for a given failure status (used by failure injection). */
export function failureReply(vendor: Vendor, status: number, retryAfterSeconds: number): JsonReply {
  if (vendor === 'gemini') return geminiFailure(status, retryAfterSeconds);
  return vendor === 'openai' ? openAIFailure(status) : anthropicFailure(status);
}

function openAIFailure(status: number): JsonReply {
  switch (status) {
    case 400:
      return openAIError(status, 'Mock injected bad request.', 'invalid_request_error');
    case 401:
      return openAIError(status, 'Incorrect API key provided.', 'invalid_request_error', {
        code: 'invalid_api_key',
      });
    case 403:
      return openAIError(status, 'You are not allowed to sample from this model', 'invalid_request_error');
    case 404:
      return openAIError(
        status,
        'The model does not exist or you do not have access to it.',
        'invalid_request_error',
        {
          code: 'model_not_found',
        },
      );
    case 429:
      return openAIError(
        status,
        'Rate limit reached for requests (mock). Please try again in 1s.',
        'requests',
        {
          code: 'rate_limit_exceeded',
        },
      );
    case 503:
      return openAIError(status, 'The server is overloaded or not ready yet.', 'server_error');
    default:
      return openAIError(
        status,
        'The server had an error while processing your request. Sorry about that!',
        status >= 500 ? 'server_error' : 'invalid_request_error',
      );
  }
}

const ANTHROPIC_TYPES: Readonly<Record<number, string>> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  402: 'billing_error',
  403: 'permission_error',
  404: 'not_found_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  504: 'timeout_error',
  529: 'overloaded_error',
};

function anthropicFailure(status: number): JsonReply {
  const type = ANTHROPIC_TYPES[status] ?? (status >= 500 ? 'api_error' : 'invalid_request_error');
  const message =
    type === 'rate_limit_error'
      ? 'Number of request tokens has exceeded your per-minute rate limit (mock).'
      : type === 'overloaded_error'
        ? 'Overloaded'
        : type === 'api_error'
          ? 'Internal server error'
          : `Mock injected ${type}.`;
  return anthropicError(status, type, message);
}

/** Statuses that come with `retry-after`, as the vendors send it (Google puts it in the body). */
export function hasRetryAfter(vendor: Vendor, status: number): boolean {
  return vendor !== 'gemini' && (status === 429 || status === 503 || status === 529);
}
