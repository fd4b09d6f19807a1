/**
 * The closed catalogue of errors a client can receive. Transport-free: each code carries its
 * HTTP status and its type in both client formats; rendering happens in render.ts only.
 */
export interface ErrorSpec {
  readonly status: number;
  /** OpenAI-format `error.type`. */
  readonly openaiType: string;
  /** Anthropic-format `error.type`. */
  readonly anthropicType: string;
}

export const ERROR_CATALOGUE = {
  invalid_api_key: {
    status: 401,
    openaiType: 'invalid_request_error',
    anthropicType: 'authentication_error',
  },
  invalid_json: { status: 400, openaiType: 'invalid_request_error', anthropicType: 'invalid_request_error' },
  invalid_request: {
    status: 400,
    openaiType: 'invalid_request_error',
    anthropicType: 'invalid_request_error',
  },
  unsupported_media_type: {
    status: 415,
    openaiType: 'invalid_request_error',
    anthropicType: 'invalid_request_error',
  },
  request_too_large: { status: 413, openaiType: 'invalid_request_error', anthropicType: 'request_too_large' },
  /** Refused by Node's HTTP parser, before any request exists (docs/operations.md, limits). */
  request_header_too_large: {
    status: 431,
    openaiType: 'invalid_request_error',
    anthropicType: 'invalid_request_error',
  },
  /** A path parameter longer than the router matches (MAX_PATH_PARAM_LENGTH in #libs/runtime). */
  uri_too_long: { status: 414, openaiType: 'invalid_request_error', anthropicType: 'invalid_request_error' },
  request_timeout: {
    status: 408,
    openaiType: 'invalid_request_error',
    anthropicType: 'invalid_request_error',
  },
  /** The provider's content filter refused the prompt (the category in the message); not a provider failure. */
  content_filter: {
    status: 400,
    openaiType: 'invalid_request_error',
    anthropicType: 'invalid_request_error',
  },
  model_not_found: { status: 404, openaiType: 'invalid_request_error', anthropicType: 'not_found_error' },
  model_not_allowed: { status: 403, openaiType: 'invalid_request_error', anthropicType: 'permission_error' },
  not_found: { status: 404, openaiType: 'invalid_request_error', anthropicType: 'not_found_error' },
  insufficient_quota: { status: 429, openaiType: 'insufficient_quota', anthropicType: 'insufficient_quota' },
  rate_limit_exceeded: { status: 429, openaiType: 'rate_limit_error', anthropicType: 'rate_limit_error' },
  /** Quota could not be checked and `quota.when_unavailable` is `refuse`. */
  quota_unavailable: { status: 503, openaiType: 'api_error', anthropicType: 'api_error' },
  /** A key not cached anywhere could not be looked up (Postgres unreachable); sent with retry-after. */
  auth_unavailable: { status: 503, openaiType: 'api_error', anthropicType: 'api_error' },
  /** The edge holds as many large bodies as its memory budget allows (edge.large_bodies_budget_bytes). */
  server_busy: { status: 503, openaiType: 'api_error', anthropicType: 'overloaded_error' },
  no_available_provider: { status: 503, openaiType: 'api_error', anthropicType: 'overloaded_error' },
  upstream_error: { status: 502, openaiType: 'api_error', anthropicType: 'api_error' },
  upstream_timeout: { status: 504, openaiType: 'api_error', anthropicType: 'api_error' },
  internal_error: { status: 500, openaiType: 'api_error', anthropicType: 'api_error' },
} as const satisfies Record<string, ErrorSpec>;

export type ErrorCode = keyof typeof ERROR_CATALOGUE;

export class GatewayError extends Error {
  override readonly name = 'GatewayError';
  readonly status: number;

  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details: { readonly param?: string | null; readonly retryAfterSeconds?: number } = {},
    /** `cause`: what went wrong inside, for the log only (never rendered). */
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.status = ERROR_CATALOGUE[code].status;
  }
}

/** Anything thrown that is not a GatewayError becomes a 500 that says nothing internal. */
export function asGatewayError(err: unknown): GatewayError {
  if (err instanceof GatewayError) return err;
  return new GatewayError(
    'internal_error',
    'The server had an error while processing your request.',
    {},
    { cause: err },
  );
}
