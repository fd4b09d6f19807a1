/** Every error the console API can answer with: code, HTTP status. A closed list, like the edge's. */
export const API_ERRORS = {
  invalid_request: 400,
  unauthenticated: 401,
  csrf_failed: 403,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  request_timeout: 408,
  payload_too_large: 413,
  unsupported_media_type: 415,
  request_header_too_large: 431,
  uri_too_long: 414,
  rate_limited: 429,
  internal_error: 500,
  router_unavailable: 502,
  /** Redis (sessions, sign-in throttle) or Postgres unreachable; sent with retry-after. */
  service_unavailable: 503,
} as const;

export type ApiErrorCode = keyof typeof API_ERRORS;

/** Rendered as `{ error: { code, message } }` with the code's status by the exception filter. */
export class ApiError extends Error {
  readonly status: number;

  constructor(
    readonly code: ApiErrorCode,
    message: string,
    /** Extra response headers, e.g. retry-after on 429. */
    readonly headers: Readonly<Record<string, string>> = {},
    /** `cause`: what went wrong inside, for the log only (never rendered). */
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.status = API_ERRORS[code];
  }
}

export interface ApiErrorBody {
  readonly error: { readonly code: ApiErrorCode; readonly message: string };
}

export function errorBody(err: ApiError): ApiErrorBody {
  return { error: { code: err.code, message: err.message } };
}

/** What the client sees for someone else's resource as much as for a missing one. */
export const notFound = (what: string): ApiError => new ApiError('not_found', `${what} not found.`);
