import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { type Keyring, KeyringError } from './keyring.js';

/**
 * Envelope encryption of one secret with node:crypto's AES-256-GCM (OpenSSL): a fresh data key
 * per secret encrypts it, and the data key is stored wrapped by the deployment's key-encryption
 * key. Both layers bind the secret's id as additional data, so a ciphertext copied onto another
 * row, or a wrapped key onto another secret, fails authentication instead of decrypting.
 */
export interface SealedSecret {
  readonly kekId: string;
  readonly wrappedKey: Buffer;
  readonly ciphertext: Buffer;
}

const IV_BYTES = 12;
const TAG_BYTES = 16;

/** `iv | tag | ciphertext` in one buffer. */
function encrypt(key: Buffer, plaintext: Buffer, aad: string): Buffer {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(aad, 'utf8'));
  const body = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), body]);
}

function decrypt(key: Buffer, sealed: Buffer, aad: string): Buffer {
  if (sealed.length < IV_BYTES + TAG_BYTES) throw new KeyringError('sealed value too short');
  const decipher = createDecipheriv('aes-256-gcm', key, sealed.subarray(0, IV_BYTES));
  decipher.setAAD(Buffer.from(aad, 'utf8'));
  decipher.setAuthTag(sealed.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
  return Buffer.concat([decipher.update(sealed.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]);
}

/**
 * The data layer's additional data: the secret's id, and where it may be sent once bound (a row
 * whose binding columns were edited then fails to open). Legacy rows (no binding) bind the id only.
 */
export interface SealBinding {
  readonly provider: string;
  readonly origins: readonly string[];
}
const dataAad = (secretId: string, binding: SealBinding | null): string =>
  binding === null
    ? `config-secret:${secretId}`
    : `config-secret:${secretId}:${JSON.stringify([binding.provider, [...binding.origins].sort()])}`;
const wrapAad = (secretId: string, kekId: string): string => `config-secret-key:${secretId}:${kekId}`;

export function seal(
  secretId: string,
  plaintext: string,
  keyring: Keyring,
  binding: SealBinding | null = null,
): SealedSecret {
  const dataKey = randomBytes(32);
  try {
    const kek = keyring.current;
    return {
      kekId: kek.id,
      wrappedKey: encrypt(kek.key, dataKey, wrapAad(secretId, kek.id)),
      ciphertext: encrypt(dataKey, Buffer.from(plaintext, 'utf8'), dataAad(secretId, binding)),
    };
  } finally {
    dataKey.fill(0);
  }
}

function unwrap(
  secretId: string,
  sealed: Pick<SealedSecret, 'kekId' | 'wrappedKey'>,
  keyring: Keyring,
): Buffer {
  const kek = keyring.byId(sealed.kekId);
  if (!kek)
    throw new KeyringError(`secret ${secretId} is wrapped by key ${sealed.kekId}, not in the keyring`);
  try {
    return decrypt(kek.key, sealed.wrappedKey, wrapAad(secretId, sealed.kekId));
  } catch (err) {
    if (err instanceof KeyringError) throw err;
    throw new KeyringError(
      `secret ${secretId}: its data key does not authenticate under key ${sealed.kekId}`,
    );
  }
}

export function open(
  secretId: string,
  sealed: SealedSecret,
  keyring: Keyring,
  binding: SealBinding | null = null,
): string {
  const dataKey = unwrap(secretId, sealed, keyring);
  try {
    return decrypt(dataKey, sealed.ciphertext, dataAad(secretId, binding)).toString('utf8');
  } catch {
    throw new KeyringError(`secret ${secretId}: its ciphertext does not authenticate`);
  } finally {
    dataKey.fill(0);
  }
}

/** The same data key wrapped by the keyring's current key (the ciphertext does not change). */
export function rewrap(
  secretId: string,
  sealed: Pick<SealedSecret, 'kekId' | 'wrappedKey'>,
  keyring: Keyring,
): Pick<SealedSecret, 'kekId' | 'wrappedKey'> {
  const dataKey = unwrap(secretId, sealed, keyring);
  try {
    const kek = keyring.current;
    return { kekId: kek.id, wrappedKey: encrypt(kek.key, dataKey, wrapAad(secretId, kek.id)) };
  } finally {
    dataKey.fill(0);
  }
}

/**
 * What the console shows of a secret once saved: its vendor prefix (up to the first `-` in the
 * first 8 characters, as in `sk-` or `sk-ant-`) and its last 4 characters, only when the secret is
 * long enough that those reveal nothing useful.
 */
export function secretHint(secret: string): string {
  if (secret.length < 16) return '...';
  const dash = secret.slice(0, 8).lastIndexOf('-');
  const prefix = dash >= 0 ? secret.slice(0, dash + 1) : '';
  return `${prefix}...${secret.slice(-4)}`;
}
