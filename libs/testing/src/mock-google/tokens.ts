import { createPublicKey } from 'node:crypto';
import { decodeJwt, errors, jwtVerify } from 'jose';
import { verifyJwt } from '../mock-entra/jwt.js';

/** The scope every Vertex AI call needs. */
export const CLOUD_PLATFORM_SCOPE = 'https://www.googleapis.com/auth/cloud-platform';

/**
 * The audience the mock's access tokens carry. Google's access tokens are opaque; the mock's are
 * JWTs so that Vertex's stand-in can check them offline, as Google's front end checks its own.
 */
export const GOOGLE_API_AUDIENCE = 'https://www.googleapis.com/';

/** Google's OAuth token endpoint: the `aud` of a service account's JWT-bearer assertion. */
export const GOOGLE_TOKEN_URL = 'https://oauth2.googleapis.com/token';

export type GoogleTokenVerdict =
  | { readonly ok: true; readonly claims: Record<string, unknown> }
  | { readonly ok: false; readonly why: 'malformed' | 'signature' | 'audience' | 'expired' | 'scope' };

/**
 * An access token as Google's API front end checks it: issued by the trusted identity (its
 * signature), for Google's APIs, unexpired, and granting `cloud-platform`.
 */
export async function verifyGoogleToken(
  token: string,
  trustedPems: readonly string[],
  nowSeconds = Math.floor(Date.now() / 1000),
): Promise<GoogleTokenVerdict> {
  const verdict = await verifyJwt(token, trustedPems, GOOGLE_API_AUDIENCE, nowSeconds);
  if (!verdict.ok) return { ok: false, why: verdict.why === 'not_yet_valid' ? 'expired' : verdict.why };
  const scope = verdict.claims.scope;
  if (typeof scope !== 'string' || !scope.split(' ').includes(CLOUD_PLATFORM_SCOPE))
    return { ok: false, why: 'scope' };
  return verdict;
}

/**
 * The claims of a JWT-bearer assertion, once its RS256 signature is checked against the account's
 * key (the caller checks the claims as Google's token endpoint does); null when it is not signed so.
 */
export async function assertionClaims(
  assertion: string,
  publicKeyPem: string,
): Promise<Record<string, unknown> | null> {
  try {
    const key = createPublicKey(publicKeyPem);
    return (await jwtVerify(assertion, key, { algorithms: ['RS256'] })).payload as Record<string, unknown>;
  } catch (err) {
    // The signature held (jose checks it first); the time claims are the caller's to judge, with
    // Google's own limits and wording.
    if (err instanceof errors.JWTExpired || err instanceof errors.JWTClaimValidationFailed)
      return err.payload as Record<string, unknown>;
    return null;
  }
}

/** The payload of a JWT without checking it (to read `iss` before the key is known). */
export function unverifiedClaims(jwt: string): Record<string, unknown> | null {
  try {
    return decodeJwt(jwt) as Record<string, unknown>;
  } catch {
    return null;
  }
}
