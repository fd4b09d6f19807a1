import { type ColumnType } from 'kysely';
import { type Int8, type Timestamp } from './column-types.js';

/** A sum the database defaults to 0; written as a number, bigint or string, read as a string. */
type Sum = ColumnType<string, string | number | bigint | undefined, string | number | bigint>;

/**
 * The request logs summed per UTC hour, account, key, model and provider (migration 0019): what
 * every usage report reads. Written by the worker with the logs, from the rows it inserted;
 * recomputed from the logs by `npm run usage:rebuild`. Kept forever.
 */
export interface UsageHourlyTable {
  /** The hour's first instant (UTC). */
  hour: Timestamp;
  user_id: string | null;
  /** The key's team, which paid; null: the user's own account. */
  team_id: string | null;
  key_id: string | null;
  model: string | null;
  provider_id: string | null;
  requests: Sum;
  /** Requests answered with HTTP status >= 400. */
  error_requests: Sum;
  input_tokens: Sum;
  output_tokens: Sum;
  cached_tokens: Sum;
  cache_write_5m_tokens: Sum;
  cache_write_1h_tokens: Sum;
  reasoning_tokens: Sum;
  audio_input_tokens: Sum;
  cached_audio_input_tokens: Sum;
  audio_output_tokens: Sum;
  web_search_requests: Sum;
  input_characters: Sum;
  cost_nanos: Int8;
  /** Cache savings, nanocredits x 1e6, unrounded (numeric, read as a string). */
  cache_savings_e6: Sum;
}
