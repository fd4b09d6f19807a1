import { GatewayError } from '#libs/protocol';

/** Statuses worth trying the next candidate for: the provider, not the request, is at fault. */
export function isRetriableStatus(status: number): boolean {
  return status === 429 || status >= 500;
}

/**
 * What the client gets for an upstream answer that is not a success. Request errors (400, 404,
 * 422...) are the client's own and pass through in the same format; failures of the provider or
 * of our credentials with it become gateway errors, so a client never sees another party's 401.
 */
export function mapUpstreamFailure(
  status: number,
  retryAfter: string | undefined,
): GatewayError | 'passthrough' {
  if (status === 401 || status === 403) {
    return new GatewayError(
      'upstream_error',
      'The provider rejected the gateway credentials for this model.',
    );
  }
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
