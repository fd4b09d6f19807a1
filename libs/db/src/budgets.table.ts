import { type ColumnType, type Insertable, type Selectable } from 'kysely';
import { type CreatedAt, type Int8 } from './column-types.js';

export type BudgetPeriod = 'day' | 'week' | 'month' | 'lifetime';
export type BudgetWindowKind = 'calendar_utc' | 'rolling';

/**
 * A spend limit per period of a key (`key_id`), or of all of a user's keys (`key_id` null), or of
 * all of a team's keys (`team_id`, `user_id` null; migration 0016).
 */
export interface BudgetsTable {
  id: ColumnType<string, string | undefined, never>;
  user_id: string | null;
  team_id: ColumnType<string | null, string | null | undefined, never>;
  key_id: string | null;
  period: BudgetPeriod;
  window_kind: BudgetWindowKind;
  limit_nanos: Int8;
  /** A config group whose models it counts; at most one of model_group and models is set. */
  model_group: string | null;
  /** Or an explicit set of model ids; both null = every model. */
  models: string[] | null;
  created_by: string | null;
  created_at: CreatedAt;
}

export type BudgetRow = Selectable<BudgetsTable>;
export type NewBudget = Insertable<BudgetsTable>;
