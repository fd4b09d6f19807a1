import { type Generated, type Insertable, type Selectable } from 'kysely';
import { type CreatedAt, type Int8 } from './column-types.js';

/**
 * The credit side of the quota ledger (charges are the debit side): every credit a user ever got,
 * so that balance_nanos = sum(grants) - sum(charges) always holds.
 */
export interface QuotaGrantsTable {
  id: Generated<string>;
  user_id: string;
  /** Nanocredits added; negative for a correction that takes credits back. Never zero. */
  amount_nanos: Int8;
  /** The admin who granted it, or null for the system (a new user's default grant). */
  granted_by: string | null;
  note: string;
  created_at: CreatedAt;
}

export type QuotaGrant = Selectable<QuotaGrantsTable>;
export type NewQuotaGrant = Insertable<QuotaGrantsTable>;
