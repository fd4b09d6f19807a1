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

const EXACT_STARTED_AT = sql<string>`to_char(started_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;

/**
 * One page of logs, newest first, keyset-paginated on (started_at, request_id): the indexes
 * (user_id, started_at desc), (key_id, started_at desc) and (started_at desc, request_id desc)
 * serve it without offsets, and migration 0021's indexes serve each filter, alone and within a
 * user's or team's view (docs/operations.md, "Request log indexes"). Returns up to `limit` rows;
 * ask for one more to know if a page follows.
 */
export async function listRequestLogs(db: Kysely<Database>, q: LogQuery): Promise<ConsoleLogRow[]> {
  return requestLogsPageQuery(db, q).execute();
}

/** The query `listRequestLogs` runs, unexecuted: its plan is checked at scale (EXPLAIN). */
export function requestLogsPageQuery(db: Kysely<Database>, q: LogQuery) {
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
    .limit(q.limit);
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
