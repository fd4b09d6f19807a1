import { type ColumnType, type Generated, type Selectable } from 'kysely';
import { type Timestamp } from './column-types.js';

export type AuditActorKind = 'user' | 'token' | 'anonymous' | 'system';
export type AuditOutcome = 'ok' | 'refused';

/** One entry of the append-only audit trail (migration 0012; written through libs/audit only). */
export interface AuditEventsTable {
  /** bigserial, read as a decimal string like every int8 here. */
  id: Generated<string>;
  at: Timestamp;
  actor_kind: AuditActorKind;
  actor_id: string | null;
  actor_email: string | null;
  actor_token_name: string | null;
  ip: string | null;
  user_agent: string | null;
  action: string;
  target_type: string | null;
  target_id: string | null;
  before: ColumnType<unknown, string | null, never>;
  after: ColumnType<unknown, string | null, never>;
  outcome: AuditOutcome;
  reason: string | null;
  prev_hash: string;
  hash: string;
}

export type AuditEventRow = Selectable<AuditEventsTable>;
