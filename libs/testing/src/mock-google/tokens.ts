import { createPublicKey, verify } from 'node:crypto';
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
export function verifyGoogleToken(
  token: string,
  trustedPems: readonly string[],
  nowSeconds = Math.floor(Date.now() / 1000),
): GoogleTokenVerdict {
  const verdict = verifyJwt(token, trustedPems, GOOGLE_API_AUDIENCE, nowSeconds);
  if (!verdict.ok) return { ok: false, why: verdict.why === 'not_yet_valid' ? 'expired' : verdict.why };
  const scope = verdict.claims.scope;
  if (typeof scope !== 'string' || !scope.split(' ').includes(CLOUD_PLATFORM_SCOPE))
    return { ok: false, why: 'scope' };
  return verdict;
}

/** The claims of a JWT-bearer assertion, once its signature is checked against the account's key. */
export function assertionClaims(assertion: string, publicKeyPem: string): Record<string, unknown> | null {
  const parts = assertion.split('.');
  if (parts.length !== 3) return null;
  const [head, body, sig] = parts as [string, string, string];
  try {
    const header = JSON.parse(Buffer.from(head, 'base64url').toString('utf8')) as { alg?: unknown };
    if (header.alg !== 'RS256') return null;
    const signed = verify(
      'RSA-SHA256',
      Buffer.from(`${head}.${body}`),
      createPublicKey(publicKeyPem),
      Buffer.from(sig, 'base64url'),
    );
    return signed
      ? (JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as Record<string, unknown>)
      : null;
  } catch {
    return null;
  }
}

/** The payload of a JWT without checking it (to read `iss` before the key is known). */
export function unverifiedClaims(jwt: string): Record<string, unknown> | null {
  try {
    return JSON.parse(Buffer.from(jwt.split('.')[1] ?? '', 'base64url').toString('utf8')) as Record<
      string,
      unknown
    >;
  } catch {
    return null;
  }
}
