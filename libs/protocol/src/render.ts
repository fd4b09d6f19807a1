import { ERROR_CATALOGUE, type GatewayError } from './errors.js';

/**
 * The client error shapes: SPEC.md's A for OpenAI-format endpoints and B for /v1/messages, and
 * Google's (`{error: {code, message, status}}`) for the Gemini API under /v1beta.
 */
export type ClientFormat = 'openai' | 'anthropic' | 'google';

/** What a request with no path to go by gets (refused by the HTTP parser): shape A. */
export const DEFAULT_CLIENT_FORMAT: ClientFormat = 'openai';

export interface RenderedError {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

/** The request headers `clientFormatOf` looks at (Node's lower-cased header map fits). */
export type FormatHeaders = Readonly<Record<string, string | string[] | undefined>>;

/**
 * Which shape a request gets: the Messages endpoints speak Anthropic; the Models endpoints, which
 * both vendors have at the same path, speak it to a client that sends `anthropic-version` or
 * authenticates by `x-api-key` (what Anthropic's SDKs do); everything else is OpenAI's.
 */
export function clientFormatOf(path: string, headers: FormatHeaders = {}): ClientFormat {
  if (path.startsWith('/v1/messages')) return 'anthropic';
  if (path.startsWith('/v1beta/')) return 'google';
  const anthropicClient = headers['anthropic-version'] !== undefined || headers['x-api-key'] !== undefined;
  return anthropicClient && path.startsWith('/v1/models') ? 'anthropic' : 'openai';
}

export function errorBody(err: GatewayError, format: ClientFormat): object {
  const spec = ERROR_CATALOGUE[err.code];
  if (format === 'google') {
    return { error: { code: err.status, message: err.message, status: googleStatusOf(err.status) } };
  }
  if (format === 'anthropic') {
    return { type: 'error', error: { type: spec.anthropicType, message: err.message } };
  }
  return {
    error: { message: err.message, type: spec.openaiType, param: err.details.param ?? null, code: err.code },
  };
}

export function renderError(err: GatewayError, format: ClientFormat): RenderedError {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (err.details.retryAfterSeconds !== undefined)
    headers['retry-after'] = String(err.details.retryAfterSeconds);
  // The official SDKs retry every 429 on their own, and the Anthropic one sleeps whatever
  // retry-after says: a spent daily budget would hold its call for hours, a spent balance be asked
  // again for nothing. `x-should-retry`, which both SDKs obey, leaves the decision to the client.
  if (err.code === 'insufficient_quota') headers['x-should-retry'] = 'false';
  return { status: err.status, headers, body: JSON.stringify(errorBody(err, format)) };
}

/**
 * The google.rpc.Code name Google's APIs pair with an HTTP status. Google answers a body too
 * large or of the wrong type with 400 INVALID_ARGUMENT; the status stays the catalogue's.
 */
export function googleStatusOf(status: number): string {
  switch (status) {
    case 401:
      return 'UNAUTHENTICATED';
    case 403:
      return 'PERMISSION_DENIED';
    case 404:
      return 'NOT_FOUND';
    case 408:
    case 504:
      return 'DEADLINE_EXCEEDED';
    case 409:
      return 'ABORTED';
    case 429:
      return 'RESOURCE_EXHAUSTED';
    case 500:
      return 'INTERNAL';
    case 501:
      return 'UNIMPLEMENTED';
    case 502:
    case 503:
      return 'UNAVAILABLE';
    default:
      return status >= 500 ? 'INTERNAL' : 'INVALID_ARGUMENT';
  }
}
