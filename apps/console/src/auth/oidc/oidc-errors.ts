import * as oidc from 'openid-client';
import { ApiError } from '../../http/api-error.js';

/** The OPE's own words ("unexpected JWT "aud" (audience) claim value") under openid-client's summary. */
function detail(err: oidc.ClientError): string {
  const cause = err.cause;
  return cause instanceof Error && cause.message ? cause.message : err.message;
}

const NETWORK_FAILURES = new Set(['TypeError', 'TimeoutError', 'AbortError']);

/**
 * fetch failed (a TypeError) or openid-client's timeout fired, thrown as is or wrapped in its
 * code-less ClientError ("something went wrong", the failure as cause). By name: they may come
 * from another realm than ours.
 */
function isUnreachable(err: unknown): boolean {
  const name = (err as { name?: unknown } | null)?.name;
  if (typeof name === 'string' && NETWORK_FAILURES.has(name)) return true;
  return err instanceof oidc.ClientError && err.code === undefined && isUnreachable(err.cause);
}

/**
 * What a failed callback tells the browser: the provider's refusal or an ID token that did not
 * validate (openid-client's coded errors) is the caller's 401; the provider out of reach is a 503.
 * Null for anything else (a store outage, a bug): the exception filter answers those.
 */
export function callbackError(err: unknown): ApiError | null {
  if (err instanceof ApiError) return err;
  if (isUnreachable(err)) return unreachable(err);
  if (err instanceof oidc.AuthorizationResponseError)
    return new ApiError('unauthenticated', `The identity provider refused the sign-in (${err.error}).`);
  if (err instanceof oidc.ResponseBodyError)
    return new ApiError(
      'unauthenticated',
      `The identity provider refused the code (${err.error}).`,
      {},
      { cause: err },
    );
  if (err instanceof oidc.ClientError && err.code !== undefined)
    return new ApiError('unauthenticated', `The ID token was refused: ${detail(err)}.`, {}, { cause: err });
  return null;
}

/** Discovery or the start route failing: the provider is out of reach or not an OIDC provider. */
export function startError(err: unknown): ApiError {
  if (err instanceof oidc.ClientError || isUnreachable(err)) return unreachable(err);
  throw err;
}

const unreachable = (err: unknown): ApiError =>
  new ApiError(
    'service_unavailable',
    'The identity provider cannot be reached. Please try again shortly.',
    { 'retry-after': '5' },
    { cause: err },
  );
