import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

/** Where `npm start` keeps a machine-local key-encryption key when the environment names none. */
export const LOCAL_SECRET_KEYS_FILE = 'var/secret-keys';

/**
 * The keyring the apps get (GATEWAY_SECRET_KEYS). The environment's wins. Otherwise, for a local
 * run, a key made once with the system's CSPRNG and kept in a file only its owner reads, so an
 * admin can store a provider key in the console on the first run without a restart. Production
 * sets GATEWAY_SECRET_KEYS from its secret store (README, "Secrets at rest").
 */
export function secretKeysFor(
  fromEnv: string | undefined,
  file: string,
): { readonly keys: string; readonly source: 'env' | 'created' | 'file' } {
  if (fromEnv) return { keys: fromEnv, source: 'env' };
  if (existsSync(file)) return { keys: readFileSync(file, 'utf8').trim(), source: 'file' };
  mkdirSync(dirname(file), { recursive: true });
  const keys = `local:${randomBytes(32).toString('base64')}`;
  writeFileSync(file, `${keys}\n`, { mode: 0o600, flag: 'wx' });
  chmodSync(file, 0o600);
  return { keys, source: 'created' };
}
