import { type ColumnType, type Generated, type Insertable, type Selectable } from 'kysely';
import { type LoggedPrices } from '#libs/queue';
import { type Int8, type Timestamp } from './column-types.js';

/** One upstream attempt as stored in `request_logs.attempts` (mirrors Attempt in libs/queue). */
export interface StoredAttempt {
  providerId: string;
  status: number;
  outcome: string;
  latencyMs: number;
  /** Why it failed, in the provider's words (a refused credential); absent on most attempts. */
  reason?: string;
  /** The model it was for, on every attempt of a request that fell back (absent otherwise). */
  model?: string;
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
  /** The key's team, which paid for the request; null for a user's own key (migration 0016). */
  team_id: ColumnType<string | null, string | null | undefined, string | null>;
  group_name: string | null;
  endpoint: string;
  /** The model that answered and was charged (a fallback's, when one answered). */
  model: string | null;
  /** The model as the client named it, an id or an alias (migration 0012; null on older rows). */
  requested_model: string | null;
  /** The model the request was for when a fallback answered instead (migration 0012); else null. */
  fallback_from: string | null;
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
  /** Cache reads: part of `input_tokens`, as the cache writes below (migration 0007). */
  cached_tokens: number | null;
  /** The components of the usage (migration 0007; null on older rows). */
  uncached_input_tokens: number | null;
  cache_write_5m_tokens: number | null;
  cache_write_1h_tokens: number | null;
  /** Part of `output_tokens`. */
  reasoning_tokens: number | null;
  /** Uncached prompt audio: part of `uncached_input_tokens` (migration 0010; null on older rows). */
  audio_input_tokens: number | null;
  /** Prompt audio read from the cache: part of `cached_tokens` (migration 0018; null on older rows). */
  cached_audio_input_tokens: number | null;
  /** Audio output (speech): part of `output_tokens` (migration 0018; null on older rows). */
  audio_output_tokens: number | null;
  /** Searches the vendor ran and bills per search (migration 0010; null on older rows). */
  web_search_requests: number | null;
  /** Prompt characters the vendor bills per character (migration 0014; null on older rows). */
  input_characters: number | null;
  /** jsonb: the prices charged (`LoggedPrices`, nanocredits per million tokens); null if none. */
  prices: ColumnType<LoggedPrices | null, string | null, string | null>;
  /** The tokens are the gateway's estimate, not the provider's count (migration 0004). */
  usage_estimated: Generated<boolean>;
  /** What translation carried or dropped (empty when passed through or nothing changed). */
  adjustments: Generated<string[]>;
  /** What the worker changed to store the log (migration 0009; empty when stored as sent). */
  repairs: Generated<string[]>;
  cost_nanos: Int8;
  /** jsonb; written as a JSON string, read back parsed. */
  attempts: ColumnType<StoredAttempt[], string, string>;
}

export type RequestLog = Selectable<RequestLogsTable>;
export type NewRequestLog = Insertable<RequestLogsTable>;
