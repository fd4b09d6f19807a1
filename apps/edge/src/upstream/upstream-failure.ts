import { CredentialUnavailableError } from '#libs/credentials';
import { GatewayError } from '#libs/protocol';

/** Statuses worth trying the next candidate for: the provider, not the request, is at fault. */
export function isRetriableStatus(status: number): boolean {
  return status === 429 || status >= 500;
}

/**
 * The provider refused the gateway's own credentials (the client's key never goes upstream): a
 * provider failure, failed over like a 5xx. When no other candidate answers, the client gets this
 * 502, never the upstream's 401, which its SDK would read as its own key being wrong.
 */
export const credentialsRefused = (): GatewayError =>
  new GatewayError('upstream_error', 'The provider rejected the gateway credentials for this model.');

/**
 * What the client gets for an upstream answer that is not a success. Request errors (400, 404,
 * 422...) are the client's own and pass through in the same format; failures of the provider
 * become gateway errors. A refusal of the gateway's credentials never gets here (the failover
 * moves on from it); a 401/403 still maps to its 502, so no path can hand a client another
 * party's 401.
 */
export function mapUpstreamFailure(
  status: number,
  retryAfter: string | undefined,
): GatewayError | 'passthrough' {
  if (status === 401 || status === 403) return credentialsRefused();
  if (status === 429) {
    const seconds = retryAfter !== undefined && /^\d+$/.test(retryAfter) ? Number(retryAfter) : undefined;
    return new GatewayError(
      'rate_limit_exceeded',
      'The provider for this model is rate limited; retry later.',
      {
        retryAfterSeconds: seconds,
      },
    );
  }
  if (status >= 500)
    return new GatewayError('upstream_error', `The provider for this model failed (HTTP ${status}).`);
  return 'passthrough';
}

/** Why the total deadline aborted a request (the abort reason, told apart from a client hang-up). */
export const TOTAL_DEADLINE = Symbol('total deadline');
export const CLIENT_GONE = Symbol('client gone');

export interface AttemptFailure {
  /** Log attempt outcome; the sample carries the same one ('aborted' ships no sample). */
  readonly outcome: 'connect_error' | 'timeout' | 'stream_error' | 'aborted';
  /** The client's error if this failure is the last one. */
  readonly error: GatewayError;
  /** False when no other candidate should be tried (deadline passed, client gone). */
  readonly retriable: boolean;
}

/**
 * Classifies a thrown upstream error. `afterHeaders`: the response had started (reading a body).
 * Built only on failure: constructing errors is not free.
 */
export function classifyUpstreamError(
  err: unknown,
  signal: AbortSignal,
  afterHeaders: boolean,
): AttemptFailure {
  if (signal.aborted) {
    return signal.reason === CLIENT_GONE
      ? {
          outcome: 'aborted',
          error: new GatewayError('upstream_error', 'The client went away.'),
          retriable: false,
        }
      : { outcome: 'timeout', error: timeoutError(), retriable: false };
  }
  if (err instanceof CredentialUnavailableError) {
    // The gateway's own credential for the provider, not the client's request: the next one may serve.
    return {
      outcome: 'connect_error',
      error: new GatewayError('upstream_error', 'The gateway holds no valid credential for this provider.'),
      retriable: true,
    };
  }
  const code = (err as { code?: unknown }).code;
  if (code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT')
    return { outcome: 'timeout', error: timeoutError(), retriable: true };
  if (code === 'UND_ERR_CONNECT_TIMEOUT')
    return { outcome: 'connect_error', error: timeoutError(), retriable: true };
  if (afterHeaders) {
    return {
      outcome: 'stream_error',
      error: new GatewayError('upstream_error', 'The provider for this model broke off its response.'),
      retriable: true,
    };
  }
  return {
    outcome: 'connect_error',
    error: new GatewayError('upstream_error', 'The provider for this model could not be reached.'),
    retriable: true,
  };
}

const timeoutError = (): GatewayError =>
  new GatewayError('upstream_timeout', 'The provider for this model did not answer in time.');

/** `retry-after` in ms (delta seconds only; HTTP dates are rare from APIs); null when absent. */
export function retryAfterMs(value: string | undefined): number | null {
  return value !== undefined && /^\d+$/.test(value) ? Number(value) * 1000 : null;
}

/**
 * A provider's request error (4xx other than auth and rate limits) for a client of another format:
 * the provider's own message in the client's shape, with the closest status.
 */
export function upstreamRequestError(status: number, message: string | null): GatewayError {
  const text = message ?? `The provider rejected the request (HTTP ${status}).`;
  if (status === 404) return new GatewayError('not_found', text);
  if (status === 413) return new GatewayError('request_too_large', text);
  return new GatewayError('invalid_request', text);
}
