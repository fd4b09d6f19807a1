import { type Expression, type Kysely, type SqlBool, sql } from 'kysely';
import { type Database } from './database.js';
import { type RequestLog } from './request-logs.table.js';

/** `ok`: HTTP < 400; `error`: >= 400; a number: that exact status. */
export type LogStatusFilter = 'ok' | 'error' | number;

/** Position after the last row of a page: its exact start time (microseconds, UTC) and request id. */
export interface LogCursor {
  /** `YYYY-MM-DDTHH:MM:SS.ffffffZ`, as Postgres printed it for the row. */
  readonly startedAt: string;
  readonly requestId: string;
}

export interface LogQuery {
  /** Only this user's logs; undefined = every user's (admin). */
  readonly userId?: string;
  /** Only requests of this team's keys (docs/teams.md). */
  readonly teamId?: string;
  readonly from?: Date;
  readonly to?: Date;
  readonly model?: string;
  readonly keyId?: string;
  readonly status?: LogStatusFilter;
  readonly cursor?: LogCursor;
  readonly limit: number;
}

/** A row plus its exact start time as text, to build the next page's cursor from. */
export type ConsoleLogRow = RequestLog & { readonly started_at_exact: string };

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

/** Per request, the nanocredits x 1e6 caching saved (see `UsageRow.cache_savings_nanos`). */
const SAVED = sql`coalesce(cached_tokens, 0)::numeric * ((prices->>'input')::numeric - (prices->>'cacheRead')::numeric)
  + coalesce(cache_write_5m_tokens, 0)::numeric * ((prices->>'input')::numeric - (prices->>'cacheWrite5m')::numeric)
  + coalesce(cache_write_1h_tokens, 0)::numeric * ((prices->>'input')::numeric - (prices->>'cacheWrite1h')::numeric)`;

const EXACT_STARTED_AT = sql<string>`to_char(started_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;

/**
 * One page of logs, newest first, keyset-paginated on (started_at, request_id): the indexes
 * (user_id, started_at desc), (key_id, started_at desc) and (started_at desc, request_id desc)
 * serve it without offsets. Returns up to `limit` rows; ask for one more to know if a page follows.
 */
export async function listRequestLogs(db: Kysely<Database>, q: LogQuery): Promise<ConsoleLogRow[]> {
  return db
    .selectFrom('request_logs')
    .selectAll()
    .select(EXACT_STARTED_AT.as('started_at_exact'))
    .where((eb) => {
      const conds: Expression<SqlBool>[] = [];
      if (q.userId !== undefined) conds.push(eb('user_id', '=', q.userId));
      if (q.teamId !== undefined) conds.push(eb('team_id', '=', q.teamId));
      if (q.from) conds.push(eb('started_at', '>=', q.from));
      if (q.to) conds.push(eb('started_at', '<', q.to));
      if (q.model !== undefined) conds.push(eb('model', '=', q.model));
      if (q.keyId !== undefined) conds.push(eb('key_id', '=', q.keyId));
      if (q.status === 'ok') conds.push(eb('status', '<', 400));
      else if (q.status === 'error') conds.push(eb('status', '>=', 400));
      else if (typeof q.status === 'number') conds.push(eb('status', '=', q.status));
      if (q.cursor)
        conds.push(
          eb(
            eb.refTuple('started_at', 'request_id'),
            '<',
            eb.tuple(sql<Date>`${q.cursor.startedAt}::timestamptz`, q.cursor.requestId),
          ),
        );
      return eb.and(conds);
    })
    .orderBy('started_at', 'desc')
    .orderBy('request_id', 'desc')
    .limit(q.limit)
    .execute();
}

/** One request's log; restricted to `userId` when given (undefined when it is someone else's). */
export async function findRequestLog(
  db: Kysely<Database>,
  requestId: string,
  userId?: string,
): Promise<RequestLog | undefined> {
  let q = db.selectFrom('request_logs').selectAll().where('request_id', '=', requestId);
  if (userId !== undefined) q = q.where('user_id', '=', userId);
  return q.orderBy('started_at', 'desc').limit(1).executeTakeFirst();
}

/**
 * Whose usage: a user id = the user's own account (its requests with keys of no team); a team =
 * every request its keys made, or one member's (docs/teams.md).
 */
export type UsageScope = string | { readonly teamId: string; readonly userId?: string };

/** An account's requests, tokens and cost per UTC day and model in [from, to), oldest day first. */
export async function usageByDayAndModel(
  db: Kysely<Database>,
  scope: UsageScope,
  from: Date,
  to: Date,
): Promise<UsageRow[]> {
  const day = sql<string>`to_char(started_at at time zone 'UTC', 'YYYY-MM-DD')`;
  return db
    .selectFrom('request_logs')
    .select([
      day.as('day'),
      'model',
      sql<number>`count(*)::int`.as('requests'),
      sql<string>`coalesce(sum(input_tokens), 0)::text`.as('input_tokens'),
      sql<string>`coalesce(sum(output_tokens), 0)::text`.as('output_tokens'),
      sql<string>`coalesce(sum(cost_nanos), 0)::text`.as('cost_nanos'),
      sql<string>`coalesce(sum(cached_tokens), 0)::text`.as('cached_tokens'),
      sql<string>`coalesce(sum(coalesce(cache_write_5m_tokens, 0) + coalesce(cache_write_1h_tokens, 0)), 0)::text`.as(
        'cache_write_tokens',
      ),
      sql<string>`coalesce(round(sum(${SAVED}) / 1000000), 0)::text`.as('cache_savings_nanos'),
    ])
    .where((eb) =>
      typeof scope === 'string'
        ? eb.and([eb('user_id', '=', scope), eb('team_id', 'is', null)])
        : eb.and([
            eb('team_id', '=', scope.teamId),
            ...(scope.userId === undefined ? [] : [eb('user_id', '=', scope.userId)]),
          ]),
    )
    .where('started_at', '>=', from)
    .where('started_at', '<', to)
    .groupBy([day, 'model'])
    .orderBy(day)
    .orderBy('model')
    .execute();
}
