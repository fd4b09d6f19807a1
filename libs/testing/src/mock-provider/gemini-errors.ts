/**
 * Google's error bodies (`{error: {code, message, status, details?}}`, `status` the google.rpc.Code
 * name). Messages are the ones the Gemini API returns, as quoted in public bug reports.
 */
import type { Violation } from './gemini-proto.js';
import type { JsonReply } from './types.js';

const STATUS_NAMES: Readonly<Record<number, string>> = {
  400: 'INVALID_ARGUMENT',
  401: 'UNAUTHENTICATED',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  409: 'ABORTED',
  429: 'RESOURCE_EXHAUSTED',
  499: 'CANCELLED',
  500: 'INTERNAL',
  501: 'NOT_IMPLEMENTED',
  503: 'UNAVAILABLE',
  504: 'DEADLINE_EXCEEDED',
};

export function googleStatus(code: number): string {
  return STATUS_NAMES[code] ?? (code >= 500 ? 'INTERNAL' : 'FAILED_PRECONDITION');
}

export function geminiError(code: number, message: string, details?: readonly object[]): JsonReply {
  const error = { code, message, status: googleStatus(code), ...(details && { details }) };
  return { kind: 'json', status: code, body: { error } };
}

/** A 400 INVALID_ARGUMENT. */
export const geminiInvalid = (message: string): JsonReply => geminiError(400, message);

/**
 * A request-validation 400 as Google's generated validators word it: `* Message.path: problem`
 * and a trailing newline.
 */
export const geminiFieldError = (path: string, problem: string): JsonReply =>
  geminiInvalid(`* ${path}: ${problem}\n`);

/** Parse failures: every line in the message, each as a BadRequest field violation. */
export function geminiBadPayload(violations: readonly Violation[]): JsonReply {
  return geminiError(400, violations.map((v) => v.description).join('\n'), [
    {
      '@type': 'type.googleapis.com/google.rpc.BadRequest',
      fieldViolations: violations.map((v) => (v.field ? v : { description: v.description })),
    },
  ]);
}

/** What Google answers a body that is not JSON (no snippet of the body, unlike the real one). */
export function geminiInvalidJson(rootNotObject: boolean): JsonReply {
  const description = rootNotObject
    ? 'Invalid JSON payload received. Unknown name "": Root element must be a message.'
    : 'Invalid JSON payload received. Unexpected token.';
  return geminiBadPayload([{ description }]);
}

const API_SERVICE = 'generativelanguage.googleapis.com';
const INVALID_KEY = 'API key not valid. Please pass a valid API key.';

export const geminiInvalidKey = (): JsonReply =>
  geminiError(400, INVALID_KEY, [
    {
      '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
      reason: 'API_KEY_INVALID',
      domain: 'googleapis.com',
      metadata: { service: API_SERVICE },
    },
    { '@type': 'type.googleapis.com/google.rpc.LocalizedMessage', locale: 'en-US', message: INVALID_KEY },
  ]);

export const geminiNoKey = (): JsonReply =>
  geminiError(
    403,
    "Method doesn't allow unregistered callers (callers without established identity). Please use API Key or other form of API consumer identity to call this API.",
  );

/** An `Authorization: Bearer` token is taken as OAuth, which an API key is not. */
export const geminiBadBearer = (): JsonReply =>
  geminiError(
    401,
    'Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential. See https://developers.google.com/identity/sign-in/web/devconsole-project.',
    [
      {
        '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
        reason: 'ACCESS_TOKEN_TYPE_UNSUPPORTED',
        metadata: { service: API_SERVICE, method: 'google.ai.generativelanguage.v1beta.GenerativeService' },
      },
    ],
  );

const FAILURE_MESSAGES: Readonly<Record<number, string>> = {
  400: 'Request contains an invalid argument.',
  403: 'The caller does not have permission',
  404: 'Requested entity was not found.',
  429: 'You exceeded your current quota, please check your plan and billing details. For more information on this error, head to: https://ai.google.dev/gemini-api/docs/rate-limits.',
  500: 'An internal error has occurred. Please retry or report in https://developers.generativeai.google/guide/troubleshooting',
  503: 'The model is overloaded. Please try again later.',
  504: 'Deadline expired before operation could complete.',
};

/**
 * An injected failure. Google sends no `retry-after` header: a 429 says when to retry in its
 * RetryInfo detail instead.
 */
export function geminiFailure(code: number, retryAfterSeconds: number): JsonReply {
  const message =
    FAILURE_MESSAGES[code] ??
    (code >= 500 ? (FAILURE_MESSAGES[500] as string) : `Mock injected ${googleStatus(code)}.`);
  if (code !== 429) return geminiError(code, message);
  return geminiError(code, message, [
    {
      '@type': 'type.googleapis.com/google.rpc.QuotaFailure',
      violations: [
        {
          quotaMetric: `${API_SERVICE}/generate_content_free_tier_requests`,
          quotaId: 'GenerateRequestsPerMinutePerProjectPerModel-FreeTier',
        },
      ],
    },
    { '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: `${retryAfterSeconds}s` },
  ]);
}

/** How a Gemini stream reports a failure after it began (then closes), in either framing. */
export function geminiStreamError(framing: 'sse' | 'array'): string {
  const error = JSON.stringify(geminiFailure(503, 0).body);
  return framing === 'sse' ? `data: ${error}\r\n\r\n` : `,\r\n${error}]`;
}
