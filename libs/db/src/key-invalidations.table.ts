import { type Generated, type Selectable } from 'kysely';
import { type CreatedAt } from './column-types.js';

/** Outbox: key changes not yet announced to the edges (deleted once announced). */
export interface KeyInvalidationsTable {
  id: Generated<string>;
  /** SHA-256 hex of the key, as announced on the invalidation channel. */
  key_hash: string;
  created_at: CreatedAt;
}

export type KeyInvalidation = Selectable<KeyInvalidationsTable>;
