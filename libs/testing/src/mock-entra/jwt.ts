import { createPublicKey, generateKeyPairSync, type KeyObject, sign, verify } from 'node:crypto';

/** The audience of Azure OpenAI tokens, as Entra ID writes it in `aud`. */
export const COGNITIVE_SERVICES_AUDIENCE = 'https://cognitiveservices.azure.com';

const b64url = (value: Buffer | string): string => Buffer.from(value).toString('base64url');

/** An RS256 signing key with its key ID: what Entra ID signs access tokens with. */
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

/** A compact JWS (RS256) over the claims, signed with node:crypto. */
export function signJwt(key: SigningKey, claims: Record<string, unknown>): string {
  const head = b64url(JSON.stringify({ typ: 'JWT', alg: 'RS256', kid: key.kid }));
  const body = b64url(JSON.stringify(claims));
  const signature = sign('RSA-SHA256', Buffer.from(`${head}.${body}`), key.privateKey);
  return `${head}.${body}.${b64url(signature)}`;
}

export type JwtVerdict =
  | { readonly ok: true; readonly claims: Record<string, unknown> }
  | {
      readonly ok: false;
      readonly why: 'malformed' | 'signature' | 'audience' | 'expired' | 'not_yet_valid';
    };

/**
 * Checks a bearer token as Azure's resource does: an RS256 signature by one of the trusted keys,
 * the audience, and the validity window (`nbf` <= now < `exp`).
 */
export function verifyJwt(
  token: string,
  trustedPems: readonly string[],
  audience: string,
  nowSeconds = Math.floor(Date.now() / 1000),
): JwtVerdict {
  const parts = token.split('.');
  if (parts.length !== 3) return { ok: false, why: 'malformed' };
  const [head, body, sig] = parts as [string, string, string];
  let header: { alg?: unknown };
  let claims: Record<string, unknown>;
  try {
    header = JSON.parse(Buffer.from(head, 'base64url').toString('utf8')) as { alg?: unknown };
    claims = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as Record<string, unknown>;
  } catch {
    return { ok: false, why: 'malformed' };
  }
  if (header.alg !== 'RS256') return { ok: false, why: 'signature' };
  const data = Buffer.from(`${head}.${body}`);
  const signature = Buffer.from(sig, 'base64url');
  const signed = trustedPems.some((pem) => verify('RSA-SHA256', data, createPublicKey(pem), signature));
  if (!signed) return { ok: false, why: 'signature' };
  const aud = claims.aud;
  if (aud !== audience && !(Array.isArray(aud) && aud.includes(audience)))
    return { ok: false, why: 'audience' };
  if (typeof claims.exp !== 'number' || nowSeconds >= claims.exp) return { ok: false, why: 'expired' };
  if (typeof claims.nbf === 'number' && nowSeconds < claims.nbf) return { ok: false, why: 'not_yet_valid' };
  return { ok: true, claims };
}

/** An access token as Azure OpenAI checks it: signed by one of `keys`, for Cognitive Services, unexpired. */
export function verifyEntraToken(token: string, keys: readonly string[]): JwtVerdict {
  return verifyJwt(token, keys, COGNITIVE_SERVICES_AUDIENCE);
}
