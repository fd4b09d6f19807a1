import { type Kysely } from 'kysely';
import { KeyringError, parseKeyring, rotateSecrets, SECRET_KEYS_ENV } from '#libs/config-store';
import { type Database } from '#libs/db';

export interface RotateDeps {
  readonly db: Kysely<Database>;
  /** The value of GATEWAY_SECRET_KEYS (newest key first), or undefined. */
  readonly keys: string | undefined;
  readonly out: (line: string) => void;
  readonly err: (line: string) => void;
}

/**
 * `npm run secrets:rotate`: rewraps every stored provider secret's data key under the first key of
 * GATEWAY_SECRET_KEYS, in one transaction. The ciphertexts do not change, so running apps keep
 * opening them with either key; once it reports every secret current, the old key can be dropped.
 * Exit codes: 0 done, 1 a secret did not unwrap (nothing changed), 2 no usable keyring.
 */
export async function rotateCommand(deps: RotateDeps): Promise<number> {
  if (!deps.keys) {
    deps.err(
      `${SECRET_KEYS_ENV} is not set: put the new key first, the current one after it (new:<base64>,old:<base64>).`,
    );
    return 2;
  }
  let keyring;
  try {
    keyring = parseKeyring(deps.keys, SECRET_KEYS_ENV);
  } catch (err) {
    deps.err((err as Error).message);
    return 2;
  }
  try {
    const { rewrapped, current } = await rotateSecrets(deps.db, keyring);
    deps.out(
      `rewrapped ${rewrapped} secret(s) under key ${keyring.current.id}; ${current} already were. ` +
        `Every stored secret is now wrapped by ${keyring.current.id}: the other keys can leave ${SECRET_KEYS_ENV}.`,
    );
    return 0;
  } catch (err) {
    if (!(err instanceof KeyringError)) throw err;
    deps.err(`nothing rotated: ${err.message}`);
    return 1;
  }
}
