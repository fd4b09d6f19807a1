import { type ColumnType, type Generated, type Insertable, type Selectable, type Updateable } from 'kysely';
import { type CreatedAt, type NullableInt8, type NullableTimestamp } from './column-types.js';

export const API_KEY_STATUSES = ['active', 'revoked'] as const;
export type ApiKeyStatus = (typeof API_KEY_STATUSES)[number];

export interface ApiKeysTable {
  id: Generated<string>;
  user_id: string;
  name: ColumnType<string, string | undefined, string>;
  /** SHA-256 hex of the raw key: the only form of a key that is stored. */
  key_hash: string;
  /** What may be shown after creation, e.g. `sk-abcd...wxyz`. */
  display_prefix: string;
  group_name: string;
  status: ColumnType<ApiKeyStatus, ApiKeyStatus | undefined, ApiKeyStatus>;
  expires_at: NullableTimestamp;
  /** Lifetime spend cap of the key in nanocredits; null = only the owner's balance limits it. */
  spend_limit_nanos: NullableInt8;
  /** Nanocredits charged to this key so far (settled by the worker with each charge). */
  spent_nanos: ColumnType<string, string | number | bigint | undefined, string | number | bigint>;
  /** Requests per minute allowed to this key across all edges; null = no key limit. */
  rpm_limit: ColumnType<number | null, number | null | undefined, number | null>;
  /** Tokens (input + output) per minute allowed to this key; null = no key limit. */
  tpm_limit: ColumnType<number | null, number | null | undefined, number | null>;
  created_at: CreatedAt;
  last_used_at: NullableTimestamp;
  revoked_at: NullableTimestamp;
  /** The team whose credits and budgets the key spends (migration 0016), fixed at creation; null = its owner's. */
  team_id: ColumnType<string | null, string | null | undefined, never>;
}

export type ApiKey = Selectable<ApiKeysTable>;
export type NewApiKey = Insertable<ApiKeysTable>;
export type ApiKeyUpdate = Updateable<ApiKeysTable>;
