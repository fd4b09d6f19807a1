import { type ColumnType, type Selectable } from 'kysely';
import { type CreatedAt } from './column-types.js';

/** Where a configuration version came from. */
export type ConfigVersionSource = 'seed' | 'console' | 'api' | 'import' | 'restore';

/** One version of the live configuration: the whole document (providers, models, groups). */
export interface ConfigVersionsTable {
  version: number;
  /** The document as entered (the config schema's input shape), secrets only as references. */
  document: ColumnType<unknown, string, never>;
  source: ConfigVersionSource;
  /** The user's email, or `file:<path>` for the seed. */
  author: string;
  comment: string | null;
  created_at: CreatedAt;
}

/** A provider secret under envelope encryption (see migration 0011). */
export interface ConfigSecretsTable {
  id: ColumnType<string, string | undefined, never>;
  kek_id: string;
  wrapped_key: Buffer;
  ciphertext: ColumnType<Buffer, Buffer, never>;
  /** What the console shows instead of the secret (`sk-...abcd`). */
  hint: string;
  /** The provider the secret was entered for; null: stored before bindings, usable nowhere. */
  bound_provider: ColumnType<string | null, string | null | undefined, never>;
  /** The origins it may be sent to (its base URL's, Bedrock's control plane's). */
  bound_origins: ColumnType<string[] | null, string[] | null | undefined, never>;
  /** The binding is in the ciphertext's additional data (see migration 0017). */
  binding_sealed: ColumnType<boolean, boolean | undefined, never>;
  created_by: string;
  created_at: CreatedAt;
}

export type ConfigVersionRow = Selectable<ConfigVersionsTable>;
export type ConfigSecretRow = Selectable<ConfigSecretsTable>;
