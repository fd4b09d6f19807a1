import { createPublicKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { errors, jwtVerify, SignJWT } from 'jose';

/** The audience of Azure OpenAI tokens, as Entra ID writes it in `aud`. */
export const COGNITIVE_SERVICES_AUDIENCE = 'https://cognitiveservices.azure.com';

/** An RS256 signing key with its key ID: what Entra ID (and the mock Google) sign access tokens with. */
export interface SigningKey {
  readonly kid: string;
  readonly privateKey: KeyObject;
  /** SPKI PEM, for a verifier configured by value. */
  readonly publicKeyPem: string;
}

export function newSigningKey(kid: string): SigningKey {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  return { kid, privateKey, publicKeyPem: publicKey.export({ type: 'spki', format: 'pem' }).toString() };
}

/** A signed JWT (RS256, the key's `kid`) over the claims. */
export function signJwt(key: SigningKey, claims: Record<string, unknown>): Promise<string> {
  return new SignJWT(claims)
    .setProtectedHeader({ typ: 'JWT', alg: 'RS256', kid: key.kid })
    .sign(key.privateKey);
}

export type JwtVerdict =
  | { readonly ok: true; readonly claims: Record<string, unknown> }
  | {
      readonly ok: false;
      readonly why: 'malformed' | 'signature' | 'audience' | 'expired' | 'not_yet_valid';
    };

type Refusal = Extract<JwtVerdict, { ok: false }>['why'];

/** What a JOSE error says of a token; null when the token may verify with another key. */
function refusalOf(err: unknown): Refusal | null {
  if (err instanceof errors.JWSSignatureVerificationFailed) return null;
  if (err instanceof errors.JWTExpired) return 'expired';
  if (err instanceof errors.JWTClaimValidationFailed) {
    if (err.claim === 'aud') return 'audience';
    if (err.claim === 'nbf') return 'not_yet_valid';
    if (err.claim === 'exp') return 'expired';
  }
  if (err instanceof errors.JOSEAlgNotAllowed) return 'signature';
  return 'malformed';
}

/**
 * Checks a bearer token as Azure's resource (or Google's front end) does, with `jose`: an RS256
 * signature by one of the trusted keys, the audience, and the validity window (`nbf` <= now <
 * `exp`, no skew allowed, `exp` required).
 */
export async function verifyJwt(
  token: string,
  trustedPems: readonly string[],
  audience: string,
  nowSeconds = Math.floor(Date.now() / 1000),
): Promise<JwtVerdict> {
  for (const pem of trustedPems) {
    try {
      const { payload } = await jwtVerify(token, createPublicKey(pem), {
        algorithms: ['RS256'],
        audience,
        currentDate: new Date(nowSeconds * 1000),
        requiredClaims: ['exp'],
      });
      return { ok: true, claims: payload as Record<string, unknown> };
    } catch (err) {
      const why = refusalOf(err);
      if (why !== null) return { ok: false, why };
    }
  }
  return { ok: false, why: 'signature' };
}

/** An access token as Azure OpenAI checks it: signed by one of `keys`, for Cognitive Services, unexpired. */
export function verifyEntraToken(token: string, keys: readonly string[]): Promise<JwtVerdict> {
  return verifyJwt(token, keys, COGNITIVE_SERVICES_AUDIENCE);
}
