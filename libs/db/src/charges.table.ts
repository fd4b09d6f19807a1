import { type Insertable, type Selectable } from 'kysely';
import { type CreatedAt, type Int8 } from './column-types.js';

/** The quota ledger: at most one charge per request id, ever. */
export interface ChargesTable {
  request_id: string;
  user_id: string;
  key_id: string | null;
  amount_nanos: Int8;
  created_at: CreatedAt;
}

export type Charge = Selectable<ChargesTable>;
export type NewChargeRow = Insertable<ChargesTable>;
