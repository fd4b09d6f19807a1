import { type BudgetRow } from '#libs/db';
import { budgetOfRow, budgetWindow, nextRelease } from '#libs/quota';
import { creditsOf } from '../credits.js';

/** A budget as the API shows it: its terms, what its current window holds and when that changes. */
export interface BudgetView {
  readonly id: string;
  /** `key`: one key's; `user`: all of a user's keys together; `team`: all of a team's keys. */
  readonly scope: 'key' | 'user' | 'team';
  readonly keyId: string | null;
  readonly period: BudgetRow['period'];
  readonly window: BudgetRow['window_kind'];
  readonly limitCredits: number;
  readonly modelGroup: string | null;
  readonly models: string[] | null;
  /** Charged in the current window (Postgres: settled charges, milliseconds behind the edges). */
  readonly spentCredits: number;
  readonly leftCredits: number;
  /** Calendar: the next reset; rolling: when its oldest spend leaves; null: never (lifetime) or nothing spent. */
  readonly resetsAt: string | null;
  readonly createdAt: string;
}

/** `spend`: charged nanocredits per bucket start of the window at `nowMs` (budgetSpend). */
export function budgetView(row: BudgetRow, spend: ReadonlyMap<number, bigint>, nowMs: number): BudgetView {
  const b = budgetOfRow(row);
  const w = budgetWindow(b, nowMs);
  let spent = 0n;
  for (const v of spend.values()) spent += v;
  const first = w.buckets.findIndex((t) => (spend.get(t) ?? 0n) > 0n);
  const resetsAt = nextRelease(b, w, first < 0 ? null : first);
  const limit = BigInt(row.limit_nanos);
  return {
    id: row.id,
    scope: row.key_id !== null ? 'key' : row.team_id !== null ? 'team' : 'user',
    keyId: row.key_id,
    period: row.period,
    window: row.window_kind,
    limitCredits: creditsOf(limit),
    modelGroup: row.model_group,
    models: row.models,
    spentCredits: creditsOf(spent),
    leftCredits: creditsOf(spent >= limit ? 0n : limit - spent),
    resetsAt: resetsAt === null ? null : new Date(resetsAt).toISOString(),
    createdAt: row.created_at.toISOString(),
  };
}
