import { Inject, Injectable } from '@nestjs/common';
import { type Kysely } from 'kysely';
import { type Database, findRequestLog, listRequestLogs } from '#libs/db';
import { notFound } from '../http/api-error.js';
import { DB } from '../tokens.js';
import { encodeCursor, type LogQueryInput } from './log-query.schema.js';
import { type LogDetail, logDetail, type LogItem, logItem } from './log-view.js';

export interface LogPage {
  readonly items: LogItem[];
  readonly nextCursor: string | null;
}

const DEFAULT_LIMIT = 50;

@Injectable()
export class LogsService {
  constructor(@Inject(DB) private readonly db: Kysely<Database>) {}

  /**
   * One page, newest first. `scopeUserId` pins the query to one user whatever the filters say, and
   * `scopeTeamId` to one team's keys (a team's view, docs/teams.md).
   */
  async page(
    q: LogQueryInput,
    scopeUserId: string | undefined,
    withUser: boolean,
    scopeTeamId?: string,
  ): Promise<LogPage> {
    const limit = q.limit ?? DEFAULT_LIMIT;
    const rows = await listRequestLogs(this.db, {
      ...q,
      userId: scopeUserId ?? q.userId,
      teamId: scopeTeamId ?? q.teamId,
      limit: limit + 1,
    });
    const page = rows.slice(0, limit);
    const last = page.at(-1);
    return {
      items: page.map((r) => logItem(r, withUser)),
      nextCursor:
        rows.length > limit && last
          ? encodeCursor({ startedAt: last.started_at_exact, requestId: last.request_id })
          : null,
    };
  }

  async detail(requestId: string, scopeUserId?: string): Promise<LogDetail> {
    const row = await findRequestLog(this.db, requestId, scopeUserId);
    if (!row) throw notFound('Request log');
    return logDetail(row);
  }
}
