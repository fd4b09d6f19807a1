import { Readable } from 'node:stream';
import { Controller, Get, Inject, Query, Res, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiCookieAuth, ApiOperation, ApiQuery, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { type Kysely } from 'kysely';
import {
  type AuditChainStatus,
  type AuditEventView,
  auditEventView,
  listAuditEvents,
  scanAuditEvents,
  verifyAuditChain,
} from '#libs/audit';
import { type Database } from '#libs/db';
import { validate } from '../http/validate.js';
import { Allow } from '../session/principal.js';
import { SessionGuard } from '../session/session.guard.js';
import { DB } from '../tokens.js';
import { auditExportSchema, auditQuerySchema } from './audit-query.schema.js';

const DEFAULT_PAGE = 50;
const FILTERS = ['actor', 'action', 'target', 'outcome', 'from', 'to'];
const ApiFilters = (extra: string[] = []): MethodDecorator => {
  const decorators = [...FILTERS, ...extra].map((name) => ApiQuery({ name, required: false, type: String }));
  return (target, key, descriptor) => {
    for (const d of decorators) d(target, key, descriptor);
  };
};

/** The audit trail, read-only: nothing here (or anywhere) changes or removes an event. */
@ApiTags('admin')
@ApiCookieAuth()
@ApiBearerAuth()
@Controller('api/admin/audit')
@UseGuards(SessionGuard)
@Allow('auditor')
export class AuditController {
  constructor(@Inject(DB) private readonly db: Kysely<Database>) {}

  @Get()
  @ApiFilters(['cursor', 'limit'])
  @ApiOperation({
    summary:
      'Audit events, newest first, filtered; `nextCursor` (and its older name `next`) is the cursor of the following page',
  })
  async list(
    @Query() query: unknown,
  ): Promise<{ events: AuditEventView[]; nextCursor: string | null; next: string | null }> {
    const { cursor, limit, ...filter } = validate(auditQuerySchema, query, 'query');
    const page = await listAuditEvents(this.db, filter, { before: cursor, limit: limit ?? DEFAULT_PAGE });
    return { events: page.events.map(auditEventView), nextCursor: page.next, next: page.next };
  }

  @Get('export')
  @ApiFilters()
  @ApiOperation({ summary: 'Every matching event, oldest first, as JSON lines (streamed)' })
  export(@Query() query: unknown, @Res() reply: FastifyReply): void {
    const filter = validate(auditExportSchema, query, 'query');
    const db = this.db;
    async function* lines(): AsyncGenerator<string> {
      for await (const row of scanAuditEvents(db, filter)) yield `${JSON.stringify(auditEventView(row))}\n`;
    }
    void reply
      .type('application/x-ndjson; charset=utf-8')
      .header('content-disposition', 'attachment; filename="audit-events.jsonl"')
      .send(Readable.from(lines()));
  }

  @Get('verify')
  @ApiOperation({ summary: "The hash chain's status: intact, or the first removed or altered event" })
  async verify(): Promise<{ chain: AuditChainStatus }> {
    return { chain: await verifyAuditChain(this.db) };
  }
}
