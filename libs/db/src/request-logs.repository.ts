import { type RequestLogJob, type Usage } from '#libs/queue';
import { type Kysely, sql } from 'kysely';
import { type Database } from './database.js';
import { type NewRequestLog } from './request-logs.table.js';
import {
  addToUsageRollup,
  USAGE_ROLLUP_COLUMNS,
  USAGE_ROLLUP_SOURCE_COLUMNS,
  usageRollupSelect,
} from './usage-rollups.repository.js';

/** Postgres takes at most 65535 bind parameters per statement; stay well under it. */
const MAX_PARAMS = 60_000;

/**
 * A log as the worker stores it: the job, and what the worker had to repair in it (see
 * migration 0009); edges never send `repairs`.
 */
export type StorableLog = RequestLogJob & { readonly repairs?: readonly string[] };

export function requestLogRow(job: StorableLog, teamId: string | null = null): NewRequestLog {
  return {
    request_id: job.requestId,
    started_at: job.startedAt,
    key_id: job.keyId,
    user_id: job.userId,
    team_id: teamId,
    group_name: job.group,
    endpoint: job.endpoint,
    model: job.model,
    requested_model: job.requestedModel,
    fallback_from: job.fallbackFrom,
    provider_id: job.providerId,
    upstream_model: job.upstreamModel,
    stream: job.stream,
    status: job.status,
    error_code: job.errorCode,
    latency_ms: Math.round(job.latencyMs),
    ttft_ms: job.ttftMs === null ? null : Math.round(job.ttftMs),
    input_tokens: job.usage?.inputTokens ?? null,
    output_tokens: job.usage?.outputTokens ?? null,
    cached_tokens: job.usage?.cachedTokens ?? null,
    uncached_input_tokens: job.usage ? uncachedOf(job.usage) : null,
    cache_write_5m_tokens: job.usage?.cacheWrite5mTokens ?? null,
    cache_write_1h_tokens: job.usage?.cacheWrite1hTokens ?? null,
    reasoning_tokens: job.usage?.reasoningTokens ?? null,
    audio_input_tokens: job.usage ? (job.usage.audioInputTokens ?? 0) : null,
    cached_audio_input_tokens: job.usage ? (job.usage.cachedAudioInputTokens ?? 0) : null,
    audio_output_tokens: job.usage ? (job.usage.audioOutputTokens ?? 0) : null,
    web_search_requests: job.usage ? (job.usage.webSearchRequests ?? 0) : null,
    input_characters: job.usage ? (job.usage.inputCharacters ?? 0) : null,
    prices: job.prices === null ? null : JSON.stringify(job.prices),
    usage_estimated: job.usageEstimated,
    adjustments: job.adjustments,
    repairs: [...(job.repairs ?? [])],
    cost_nanos: job.costNanos,
    attempts: JSON.stringify(job.attempts),
  };
}

const uncachedOf = (u: Usage): number =>
  Math.max(0, u.inputTokens - u.cachedTokens - u.cacheWrite5mTokens - u.cacheWrite1hTokens);

export function chunk<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/**
 * Multi-row insert of request logs, skipping any (request_id, started_at) already stored, so a
 * redelivered job never logs twice. In the same statement, the rows it did insert (and only
 * those) are added to the hourly usage rollups (`usage_hourly`), so a redelivery counts nothing
 * twice there either. Returns how many rows were new. `teamOfKey`: the team of each team key
 * among the jobs' keys (teamsOfKeys), written as the row's team.
 */
export async function insertRequestLogs(
  db: Kysely<Database>,
  jobs: readonly StorableLog[],
  teamOfKey: ReadonlyMap<string, string> = new Map(),
): Promise<number> {
  if (jobs.length === 0) return 0;
  const rows = jobs.map((j) => requestLogRow(j, j.keyId === null ? null : (teamOfKey.get(j.keyId) ?? null)));
  const perStatement = Math.floor(MAX_PARAMS / Object.keys(rows[0]!).length);
  let inserted = 0;
  for (const part of chunk(rows, perStatement)) {
    const result = await db
      .with('inserted', (qb) =>
        qb
          .insertInto('request_logs')
          .values(part)
          .onConflict((oc) => oc.columns(['request_id', 'started_at']).doNothing())
          .returning(USAGE_ROLLUP_SOURCE_COLUMNS),
      )
      .with('rollup', (qb) =>
        qb
          .insertInto('usage_hourly')
          .columns(USAGE_ROLLUP_COLUMNS)
          .expression(usageRollupSelect(sql`inserted`))
          .onConflict(addToUsageRollup),
      )
      .selectFrom('inserted')
      .select(sql<string>`count(*)`.as('n'))
      .executeTakeFirst();
    inserted += Number(result?.n ?? 0);
  }
  return inserted;
}
