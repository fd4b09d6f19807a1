import { randomUUID } from 'node:crypto';
import { type Kysely } from 'kysely';
import { type SecretBinding, type StoredSecretValues } from '#libs/config';
import { type Database } from '#libs/db';
import { open, rewrap, seal, secretHint } from './envelope.js';
import { type Keyring } from './keyring.js';

export interface StoredSecret {
  readonly id: string;
  readonly hint: string;
}

/**
 * Seals a secret entered in the console for one provider at its origins, and stores it; only its
 * id and hint ever come back. The binding is sealed with it: no app sends it anywhere else.
 */
export async function storeSecret(
  db: Kysely<Database>,
  keyring: Keyring,
  plaintext: string,
  binding: SecretBinding,
  createdBy: string,
): Promise<StoredSecret> {
  const id = randomUUID();
  const origins = [...new Set(binding.origins)].sort();
  const sealed = seal(id, plaintext, keyring, { provider: binding.provider, origins });
  const hint = secretHint(plaintext);
  await db
    .insertInto('config_secrets')
    .values({
      id,
      kek_id: sealed.kekId,
      wrapped_key: sealed.wrappedKey,
      ciphertext: sealed.ciphertext,
      hint,
      bound_provider: binding.provider,
      bound_origins: origins,
      binding_sealed: true,
      created_by: createdBy,
    })
    .execute();
  return { id, hint };
}

/** Where each of the given secrets may be sent (null: stored before bindings); absent: no such secret. */
export async function secretBindings(
  db: Kysely<Database>,
  ids: readonly string[],
): Promise<Map<string, SecretBinding | null>> {
  if (ids.length === 0) return new Map();
  const rows = await db
    .selectFrom('config_secrets')
    .select(['id', 'bound_provider', 'bound_origins'])
    .where('id', 'in', ids)
    .execute();
  return new Map(rows.map((r) => [r.id, bindingOf(r)]));
}

function bindingOf(r: {
  bound_provider: string | null;
  bound_origins: string[] | null;
}): SecretBinding | null {
  return r.bound_provider === null || r.bound_origins === null
    ? null
    : { provider: r.bound_provider, origins: r.bound_origins };
}

/** The hints of the given secrets (for the API and console: never the value). */
export async function secretHints(
  db: Kysely<Database>,
  ids: readonly string[],
): Promise<Map<string, string>> {
  if (ids.length === 0) return new Map();
  const rows = await db.selectFrom('config_secrets').select(['id', 'hint']).where('id', 'in', ids).execute();
  return new Map(rows.map((r) => [r.id, r.hint]));
}

/**
 * Opens the given secrets. A secret that does not open (its key missing from the keyring, a
 * tampered row) is reported by id with the reason, so the provider using it is down with that
 * reason rather than the whole configuration failing.
 */
export async function openSecrets(
  db: Kysely<Database>,
  keyring: Keyring | null,
  ids: readonly string[],
): Promise<StoredSecretValues & { values: Map<string, string>; failures: Map<string, string> }> {
  const values = new Map<string, string>();
  const failures = new Map<string, string>();
  const bindings = new Map<string, SecretBinding | null>();
  if (ids.length === 0) return { values, failures, bindings };
  const rows = await db.selectFrom('config_secrets').selectAll().where('id', 'in', ids).execute();
  const found = new Set(rows.map((r) => r.id));
  for (const id of ids) if (!found.has(id)) failures.set(id, `secret ${id} does not exist`);
  for (const r of rows) {
    if (!keyring) {
      failures.set(r.id, 'GATEWAY_SECRET_KEYS is not set: stored secrets cannot be opened');
      continue;
    }
    const binding = bindingOf(r);
    const sealed = { kekId: r.kek_id, wrappedKey: r.wrapped_key, ciphertext: r.ciphertext };
    try {
      values.set(r.id, open(r.id, sealed, keyring, r.binding_sealed ? binding : null));
      bindings.set(r.id, binding);
    } catch (err) {
      failures.set(r.id, (err as Error).message);
    }
  }
  return { values, failures, bindings };
}

/**
 * Rewraps every data key not yet wrapped by the keyring's current key, in one transaction with
 * the rows locked, so a rotation is all or nothing. Returns how many were rewrapped and how many
 * already were current.
 */
export async function rotateSecrets(
  db: Kysely<Database>,
  keyring: Keyring,
): Promise<{ rewrapped: number; current: number }> {
  return db.transaction().execute(async (trx) => {
    const rows = await trx
      .selectFrom('config_secrets')
      .select(['id', 'kek_id', 'wrapped_key'])
      .orderBy('id')
      .forUpdate()
      .execute();
    let rewrapped = 0;
    for (const r of rows) {
      if (r.kek_id === keyring.current.id) continue;
      const next = rewrap(r.id, { kekId: r.kek_id, wrappedKey: r.wrapped_key }, keyring);
      await trx
        .updateTable('config_secrets')
        .set({ kek_id: next.kekId, wrapped_key: next.wrappedKey })
        .where('id', '=', r.id)
        .execute();
      rewrapped++;
    }
    return { rewrapped, current: rows.length - rewrapped };
  });
}
