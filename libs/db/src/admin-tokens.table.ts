import { type Generated, type Insertable, type Selectable } from 'kysely';
import { type CreatedAt, type NullableTimestamp, type Timestamp } from './column-types.js';
import { type UserRole } from './users.table.js';

/**
 * Named console tokens for automation (migration 0015): each with a role and a required expiry.
 * Only the SHA-256 of the secret is stored; the secret itself is shown once, at creation.
 */
export interface AdminTokensTable {
  id: Generated<string>;
  name: string;
  role: UserRole;
  /** SHA-256 (hex) of the whole secret `gwa_...`. */
  token_hash: string;
  /** The secret's first characters (`gwa_` and 6 more), to recognise it in a list. */
  display_prefix: string;
  /** The user who created it; null when an admin token did, or the user is gone. */
  created_by_user: string | null;
  /** Who created it, in words: the user's email or the creating token's name. */
  created_by: string;
  created_at: CreatedAt;
  expires_at: Timestamp;
  revoked_at: NullableTimestamp;
  /** Written at most once a minute per token (the console's throttle), so "last use" is approximate. */
  last_used_at: NullableTimestamp;
}

export type AdminToken = Selectable<AdminTokensTable>;
export type NewAdminToken = Insertable<AdminTokensTable>;
