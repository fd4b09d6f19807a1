import { type ColumnType, type Insertable, type Selectable } from 'kysely';
import { type Int8 } from './column-types.js';

/** One row per user: Postgres is the truth of balances; Redis holds the edge's fast copy. */
export interface QuotaBalancesTable {
  user_id: string;
  /** Nanocredits left; may go below zero (requests in flight when it reached zero still settle). */
  balance_nanos: Int8;
  spent_nanos: ColumnType<string, string | number | bigint | undefined, string | number | bigint>;
  updated_at: ColumnType<Date, Date | string | undefined, Date | string>;
}

export type QuotaBalance = Selectable<QuotaBalancesTable>;
export type NewQuotaBalance = Insertable<QuotaBalancesTable>;
