import { type ColumnType } from 'kysely';
import { type Int8 } from './column-types.js';

/**
 * What the charges retention keeps of the charges it deletes (migration 0020): their sum per UTC
 * day of the requests' start, account, key and model. Kept forever: balances, ledger audits and
 * lifetime budgets read these totals plus the charges still kept (docs/quota.md).
 */
export interface ChargeDailyTotalsTable {
  /** The UTC day of the requests' start (YYYY-MM-DD; read as a string, no time zone involved). */
  day: ColumnType<string, string, string>;
  user_id: string;
  team_id: string | null;
  key_id: string | null;
  model: string | null;
  amount_nanos: Int8;
  /** How many charges the total sums. */
  charges: Int8;
}
