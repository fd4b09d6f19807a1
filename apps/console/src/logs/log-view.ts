import { type RequestLog, type StoredAttempt } from '#libs/db';
import { creditsOf } from '../credits.js';
import { type UsageBreakdown, usageBreakdown } from './usage-breakdown.js';

export interface LogItem {
  readonly requestId: string;
  readonly startedAt: string;
  readonly endpoint: string;
  readonly model: string | null;
  readonly providerId: string | null;
  readonly status: number;
  readonly errorCode: string | null;
  readonly latencyMs: number;
  readonly ttftMs: number | null;
  readonly inputTokens: number | null;
  readonly outputTokens: number | null;
  /** The tokens (and so the cost) are the gateway's estimate: the provider reported no final count. */
  readonly usageEstimated: boolean;
  readonly costCredits: number;
  readonly keyId: string | null;
  /** The team that paid (the key's), or null: the user's own account (docs/teams.md). */
  readonly teamId: string | null;
  readonly stream: boolean;
  readonly userId?: string | null;
}

export interface LogDetail extends LogItem {
  readonly attempts: StoredAttempt[];
  readonly upstreamModel: string | null;
  /** The model as the client named it: a model id or an alias (null on rows of older edges). */
  readonly requestedModel: string | null;
  /** The model the request was for when a fallback (`model`) answered instead; else null. */
  readonly fallbackFrom: string | null;
  readonly cachedTokens: number | null;
  readonly userId: string | null;
  readonly groupName: string | null;
  /** What translation carried in another shape or dropped as a hint. */
  readonly adjustments: readonly string[];
  /** What the worker changed to store the log (a field it could not take as sent); usually empty. */
  readonly repairs: readonly string[];
  /** Each usage component with its price and cost (null on rows without prices). */
  readonly usage: UsageBreakdown | null;
}

export function logItem(row: RequestLog, withUser: boolean): LogItem {
  return {
    requestId: row.request_id,
    startedAt: row.started_at.toISOString(),
    endpoint: row.endpoint,
    model: row.model,
    providerId: row.provider_id,
    status: row.status,
    errorCode: row.error_code,
    latencyMs: row.latency_ms,
    ttftMs: row.ttft_ms,
    inputTokens: row.input_tokens,
    outputTokens: row.output_tokens,
    usageEstimated: row.usage_estimated,
    costCredits: creditsOf(row.cost_nanos),
    keyId: row.key_id,
    teamId: row.team_id,
    stream: row.stream,
    ...(withUser ? { userId: row.user_id } : {}),
  };
}

export function logDetail(row: RequestLog): LogDetail {
  return {
    ...logItem(row, true),
    userId: row.user_id,
    attempts: row.attempts,
    upstreamModel: row.upstream_model,
    requestedModel: row.requested_model,
    fallbackFrom: row.fallback_from,
    cachedTokens: row.cached_tokens,
    groupName: row.group_name,
    adjustments: row.adjustments,
    repairs: row.repairs,
    usage: usageBreakdown(row),
  };
}
