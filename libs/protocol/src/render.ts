import { ERROR_CATALOGUE, type GatewayError } from './errors.js';

/** The two client error shapes of SPEC.md: A for OpenAI-format endpoints, B for /v1/messages. */
export type ClientFormat = 'openai' | 'anthropic';

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
  const anthropicClient = headers['anthropic-version'] !== undefined || headers['x-api-key'] !== undefined;
  return anthropicClient && path.startsWith('/v1/models') ? 'anthropic' : 'openai';
}

export function errorBody(err: GatewayError, format: ClientFormat): object {
  const spec = ERROR_CATALOGUE[err.code];
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
  return { status: err.status, headers, body: JSON.stringify(errorBody(err, format)) };
}
