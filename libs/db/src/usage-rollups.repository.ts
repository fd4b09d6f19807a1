import { type Kysely, type OnConflictBuilder, type RawBuilder, sql } from 'kysely';
import { type Database } from './database.js';

const HOUR_MS = 3_600_000;

/** The log row's counts a rollup sums as they are (the same names on both tables). */
const SUMMED = [
  'input_tokens',
  'output_tokens',
  'cached_tokens',
  'cache_write_5m_tokens',
  'cache_write_1h_tokens',
  'reasoning_tokens',
  'audio_input_tokens',
  'cached_audio_input_tokens',
  'audio_output_tokens',
  'web_search_requests',
  'input_characters',
  'cost_nanos',
] as const;

/** The columns of `usage_hourly` a rollup writes, in the order `ROLLUP_SELECT` yields them. */
export const USAGE_ROLLUP_COLUMNS = [
  'hour',
  'user_id',
  'team_id',
  'key_id',
  'model',
  'provider_id',
  'requests',
  'error_requests',
  ...SUMMED,
  'cache_savings_e6',
] as const;

/** The measures: what an upsert adds to a row already there. */
const MEASURES = USAGE_ROLLUP_COLUMNS.slice(6);

/** The request_logs columns a rollup reads (what the worker's insert returns). */
export const USAGE_ROLLUP_SOURCE_COLUMNS = [
  'started_at',
  'user_id',
  'team_id',
  'key_id',
  'model',
  'provider_id',
  'status',
  ...SUMMED,
  'prices',
] as const;

/** Per request, the nanocredits x 1e6 caching saved (see `UsageRow.cache_savings_nanos`). */
const SAVED = sql`coalesce(cached_tokens, 0)::numeric * ((prices->>'input')::numeric - (prices->>'cacheRead')::numeric)
  + coalesce(cache_write_5m_tokens, 0)::numeric * ((prices->>'input')::numeric - (prices->>'cacheWrite5m')::numeric)
  + coalesce(cache_write_1h_tokens, 0)::numeric * ((prices->>'input')::numeric - (prices->>'cacheWrite1h')::numeric)`;

/**
 * Log rows of `source` (request_logs, or the rows an insert returned) summed per hour and
 * dimensions, in key order so concurrent batches lock rollup rows in one order.
 */
export function usageRollupSelect(source: RawBuilder<unknown>): RawBuilder<unknown> {
  return sql`select date_trunc('hour', started_at, 'UTC'), user_id, team_id, key_id, model, provider_id,
      count(*), count(*) filter (where status >= 400),
      coalesce(sum(input_tokens), 0), coalesce(sum(output_tokens), 0), coalesce(sum(cached_tokens), 0),
      coalesce(sum(cache_write_5m_tokens), 0), coalesce(sum(cache_write_1h_tokens), 0),
      coalesce(sum(reasoning_tokens), 0), coalesce(sum(audio_input_tokens), 0),
      coalesce(sum(cached_audio_input_tokens), 0), coalesce(sum(audio_output_tokens), 0),
      coalesce(sum(web_search_requests), 0), coalesce(sum(input_characters), 0),
      coalesce(sum(cost_nanos), 0), coalesce(sum(${SAVED}), 0)
    from ${source}
    group by 1, 2, 3, 4, 5, 6
    order by 1, 2, 3, 4, 5, 6`;
}

/** On a row already there for the hour and dimensions: add the new sums to it. */
export function addToUsageRollup(oc: OnConflictBuilder<Database, 'usage_hourly'>) {
  return oc
    .constraint('usage_hourly_key')
    .doUpdateSet(
      Object.fromEntries(MEASURES.map((c) => [c, sql`usage_hourly.${sql.ref(c)} + excluded.${sql.ref(c)}`])),
    );
}

/** Serializes rebuilds with the worker's upserts (SHARE ROW EXCLUSIVE conflicts with both). */
const lockRollups = (trx: Kysely<Database>) =>
  sql`lock table usage_hourly in share row exclusive mode`.execute(trx);

export const floorHour = (d: Date): Date => new Date(Math.floor(d.getTime() / HOUR_MS) * HOUR_MS);
export const ceilHour = (d: Date): Date => new Date(Math.ceil(d.getTime() / HOUR_MS) * HOUR_MS);

/**
 * Recomputes the rollup hours overlapping [from, to) from the logs, one UTC day per transaction:
 * each deletes the day's rollup rows and inserts the logs' sums, holding a lock that makes the
 * worker's batches wait (so none is counted twice or lost in between). Hours whose logs were
 * dropped by retention would be emptied: the caller clamps the range to the logs kept.
 * Returns the hours rebuilt and the rollup rows written.
 */
export async function rebuildUsageRollups(
  db: Kysely<Database>,
  from: Date,
  to: Date,
  onDay: (day: { from: Date; to: Date; rows: number }) => void = () => {},
): Promise<{ hours: number; rows: number }> {
  const start = floorHour(from);
  const end = ceilHour(to);
  let rows = 0;
  for (let dayFrom = start; dayFrom < end;) {
    const next = new Date(Math.floor(dayFrom.getTime() / (24 * HOUR_MS) + 1) * 24 * HOUR_MS);
    const dayTo = next < end ? next : end;
    const written = await db.transaction().execute(async (trx) => {
      await lockRollups(trx);
      await trx.deleteFrom('usage_hourly').where('hour', '>=', dayFrom).where('hour', '<', dayTo).execute();
      const result = await trx
        .insertInto('usage_hourly')
        .columns(USAGE_ROLLUP_COLUMNS)
        .expression(
          usageRollupSelect(
            sql`request_logs where started_at >= ${dayFrom.toISOString()}::timestamptz and started_at < ${dayTo.toISOString()}::timestamptz`,
          ),
        )
        .executeTakeFirst();
      return Number(result.numInsertedOrUpdatedRows ?? 0n);
    });
    rows += written;
    onDay({ from: dayFrom, to: dayTo, rows: written });
    dayFrom = dayTo;
  }
  return { hours: Math.max(0, (end.getTime() - start.getTime()) / HOUR_MS), rows };
}

export interface UsageRow {
  /** YYYY-MM-DD, UTC. */
  readonly day: string;
  readonly model: string | null;
  readonly requests: number;
  readonly input_tokens: string;
  readonly output_tokens: string;
  readonly cost_nanos: string;
  /** Prompt tokens read from the cache (part of `input_tokens`). */
  readonly cached_tokens: string;
  /** Prompt tokens written to the cache, both TTLs (part of `input_tokens`). */
  readonly cache_write_tokens: string;
  /**
   * What caching saved against uncached prices, in nanocredits, rounded once per row of the
   * report: sum of cache reads x (input - cache read price) + writes x (input - write price), at
   * each request's own prices. Negative when writes cost more than the reads saved.
   */
  readonly cache_savings_nanos: string;
}

/**
 * Whose usage: a user id = the user's own account (its requests with keys of no team); a team =
 * every request its keys made, or one member's (docs/teams.md).
 */
export type UsageScope = string | { readonly teamId: string; readonly userId?: string };

function scopeWhere(scope: UsageScope): RawBuilder<unknown> {
  if (typeof scope === 'string') return sql`user_id = ${scope} and team_id is null`;
  return scope.userId === undefined
    ? sql`team_id = ${scope.teamId}`
    : sql`team_id = ${scope.teamId} and user_id = ${scope.userId}`;
}

const ts = (d: Date) => sql`${d.toISOString()}::timestamptz`;

/**
 * The query behind usageByDayAndModel (exported for the scale test's EXPLAIN), or null for an
 * empty range. The whole hours of the range come from `usage_hourly` (an index scan of the
 * account's rows, whatever the size of request_logs); a bound that is not on the hour adds the
 * part of its hour inside the range from request_logs (at most two partial hours of the
 * account's logs; none for the console's day-aligned ranges).
 */
export function usageQuery(scope: UsageScope, from: Date, to: Date): RawBuilder<UsageRow> | null {
  const where = scopeWhere(scope);
  const hourFrom = ceilHour(from);
  const hourTo = floorHour(to);
  const parts: RawBuilder<unknown>[] = [];
  const logs = (a: Date, b: Date) =>
    sql`select started_at as t, model, 1 as requests, coalesce(input_tokens, 0) as input_tokens,
        coalesce(output_tokens, 0) as output_tokens, cost_nanos, coalesce(cached_tokens, 0) as cached_tokens,
        coalesce(cache_write_5m_tokens, 0) + coalesce(cache_write_1h_tokens, 0) as cache_write_tokens,
        ${SAVED} as saved
      from request_logs where ${where} and started_at >= ${ts(a)} and started_at < ${ts(b)}`;
  if (hourFrom < hourTo) {
    parts.push(sql`select hour as t, model, requests, input_tokens, output_tokens, cost_nanos, cached_tokens,
        cache_write_5m_tokens + cache_write_1h_tokens as cache_write_tokens, cache_savings_e6 as saved
      from usage_hourly where ${where} and hour >= ${ts(hourFrom)} and hour < ${ts(hourTo)}`);
    if (from < hourFrom) parts.push(logs(from, hourFrom));
    if (hourTo < to) parts.push(logs(hourTo, to));
  } else if (from < to) {
    parts.push(logs(from, to));
  } else {
    return null;
  }
  return sql<UsageRow>`
    select to_char(t at time zone 'UTC', 'YYYY-MM-DD') as day, model,
      sum(requests)::int as requests, sum(input_tokens)::text as input_tokens,
      sum(output_tokens)::text as output_tokens, sum(cost_nanos)::text as cost_nanos,
      sum(cached_tokens)::text as cached_tokens, sum(cache_write_tokens)::text as cache_write_tokens,
      coalesce(round(sum(saved) / 1000000), 0)::text as cache_savings_nanos
    from (${sql.join(parts, sql` union all `)}) as usage
    group by 1, 2
    order by 1, 2`;
}

/**
 * An account's requests, tokens and cost per UTC day and model in [from, to), oldest day first,
 * from the hourly rollups (see usageQuery): the same answer as summing the logs, to the
 * nanocredit, at a cost that depends on the account's active hours, not on the logs' size.
 */
export async function usageByDayAndModel(
  db: Kysely<Database>,
  scope: UsageScope,
  from: Date,
  to: Date,
): Promise<UsageRow[]> {
  const query = usageQuery(scope, from, to);
  return query ? (await query.execute(db)).rows : [];
}
