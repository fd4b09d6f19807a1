import { type ColumnType, type Insertable, type Selectable } from 'kysely';
import { type CreatedAt, type Int8 } from './column-types.js';

/** The quota ledger: at most one charge per request id, ever. */
export interface ChargesTable {
  request_id: string;
  user_id: string;
  key_id: string | null;
  amount_nanos: Int8;
  /** The request's start (its log's started_at): the budget window the charge counts in. */
  started_at: ColumnType<Date, Date | string | undefined, Date | string>;
  /** The model requested, for budgets limited to some models; null on charges older than budgets. */
  model: ColumnType<string | null, string | null | undefined, string | null>;
  /** The team that paid (the key's team), or null: the user's own spend (migration 0016). */
  team_id: ColumnType<string | null, string | null | undefined, never>;
  created_at: CreatedAt;
}

export type Charge = Selectable<ChargesTable>;
export type NewChargeRow = Insertable<ChargesTable>;
