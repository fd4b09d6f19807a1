import { type ColumnType, type Generated, type Insertable, type Selectable } from 'kysely';
import { type Int8, type Timestamp } from './column-types.js';

/** One upstream attempt as stored in `request_logs.attempts` (mirrors Attempt in libs/queue). */
export interface StoredAttempt {
  providerId: string;
  status: number;
  outcome: string;
  latencyMs: number;
}

/**
 * Partitioned by RANGE (started_at): monthly partitions plus a DEFAULT one that catches anything
 * outside them. Primary key (request_id, started_at): started_at comes from the job, so a
 * redelivered job hits the same key and `on conflict do nothing` skips it.
 */
export interface RequestLogsTable {
  request_id: string;
  started_at: Timestamp;
  key_id: string | null;
  user_id: string | null;
  group_name: string | null;
  endpoint: string;
  model: string | null;
  provider_id: string | null;
  upstream_model: string | null;
  stream: boolean;
  /** HTTP status sent to the client. */
  status: number;
  error_code: string | null;
  /** Whole milliseconds (rounded from the job). */
  latency_ms: number;
  ttft_ms: number | null;
  input_tokens: number | null;
  output_tokens: number | null;
  cached_tokens: number | null;
  /** The tokens are the gateway's estimate, not the provider's count (migration 0004). */
  usage_estimated: Generated<boolean>;
  /** What translation carried or dropped (empty when passed through or nothing changed). */
  adjustments: Generated<string[]>;
  cost_nanos: Int8;
  /** jsonb; written as a JSON string, read back parsed. */
  attempts: ColumnType<StoredAttempt[], string, string>;
}

export type RequestLog = Selectable<RequestLogsTable>;
export type NewRequestLog = Insertable<RequestLogsTable>;
