import { ERROR_CATALOGUE, type GatewayError } from './errors.js';

/** The two client error shapes of SPEC.md: A for OpenAI-format endpoints, B for /v1/messages. */
export type ClientFormat = 'openai' | 'anthropic';

export interface RenderedError {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

/** Which shape a request path gets: only the messages endpoint speaks Anthropic. */
export function clientFormatOf(path: string): ClientFormat {
  return path.startsWith('/v1/messages') ? 'anthropic' : 'openai';
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
