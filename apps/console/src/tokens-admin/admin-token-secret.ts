import { createHash, randomBytes } from 'node:crypto';

/** Every named admin token starts so: the guard tells them from the environment's token, and a secret scanner can spot one. */
export const ADMIN_TOKEN_PREFIX = 'gwa_';
/** `gwa_` and 43 base64url characters (32 random bytes). */
const SHAPE = /^gwa_[\w-]{43}$/;
const DISPLAY_CHARS = ADMIN_TOKEN_PREFIX.length + 6;

export interface NewAdminTokenSecret {
  /** Shown once to its creator, never stored. */
  readonly secret: string;
  readonly hash: string;
  readonly displayPrefix: string;
}

/** SHA-256 in hex: the secret has 256 bits of entropy, so a slow password hash would add nothing. */
export const adminTokenHash = (secret: string): string => createHash('sha256').update(secret).digest('hex');

export function newAdminTokenSecret(): NewAdminTokenSecret {
  const secret = `${ADMIN_TOKEN_PREFIX}${randomBytes(32).toString('base64url')}`;
  return { secret, hash: adminTokenHash(secret), displayPrefix: secret.slice(0, DISPLAY_CHARS) };
}

/** Looks like a named token (gwa_ prefix): then it is one or a refusal, never the env token. */
export const isAdminTokenLike = (bearer: string): boolean => bearer.startsWith(ADMIN_TOKEN_PREFIX);
export const isWellFormedAdminToken = (bearer: string): boolean => SHAPE.test(bearer);
