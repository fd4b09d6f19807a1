/** A key-encryption key: 32 bytes for AES-256, named so a wrapped data key says which one wrapped it. */
export interface Kek {
  readonly id: string;
  readonly key: Buffer;
}

/** The key-encryption keys of this deployment: the first wraps new secrets, the rest only unwrap. */
export interface Keyring {
  readonly current: Kek;
  byId(id: string): Kek | undefined;
  readonly ids: readonly string[];
}

export class KeyringError extends Error {
  override readonly name = 'KeyringError';
}

const ID = /^[A-Za-z0-9_-]{1,32}$/;

/**
 * `GATEWAY_SECRET_KEYS`: comma-separated `id:base64` pairs, newest first
 * (`k2:...,k1:...`). Rotation is: put a new key first, run `npm run secrets:rotate` (every data
 * key rewrapped by it), then drop the old one. The key text never appears in an error.
 */
export function parseKeyring(text: string, variable = 'GATEWAY_SECRET_KEYS'): Keyring {
  const entries = text
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  if (entries.length === 0) throw new KeyringError(`${variable} is empty`);
  const keys: Kek[] = entries.map((entry, i) => {
    const at = entry.indexOf(':');
    const id = at > 0 ? entry.slice(0, at) : '';
    if (!ID.test(id))
      throw new KeyringError(`${variable} entry ${i + 1}: expected <id>:<base64 key>, id of A-Z a-z 0-9 _ -`);
    const key = Buffer.from(entry.slice(at + 1), 'base64');
    if (key.length !== 32)
      throw new KeyringError(
        `${variable} key ${id}: must be 32 bytes in base64 (openssl rand -base64 32), got ${key.length}`,
      );
    return { id, key };
  });
  const byId = new Map<string, Kek>();
  for (const k of keys) {
    if (byId.has(k.id)) throw new KeyringError(`${variable}: key id ${k.id} appears twice`);
    byId.set(k.id, k);
  }
  return { current: keys[0]!, byId: (id) => byId.get(id), ids: keys.map((k) => k.id) };
}
