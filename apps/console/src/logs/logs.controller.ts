import { Controller, Get, Param, Query, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiCookieAuth, ApiOperation, ApiQuery, ApiTags } from '@nestjs/swagger';
import { validate } from '../http/validate.js';
import {
  Allow,
  AllowUsers,
  CurrentUser,
  EVERY_ROLE,
  READERS,
  type SessionUser,
} from '../session/principal.js';
import { SessionGuard } from '../session/session.guard.js';
import { adminLogQuerySchema, logQuerySchema, requestIdSchema } from './log-query.schema.js';
import { type LogDetail } from './log-view.js';
import { type LogPage, LogsService } from './logs.service.js';

const FILTERS = ['from', 'to', 'model', 'keyId', 'status', 'cursor', 'limit'];
const ApiFilters = (extra: string[] = []): MethodDecorator => {
  const decorators = [...FILTERS, ...extra].map((name) => ApiQuery({ name, required: false, type: String }));
  return (target, key, descriptor) => {
    for (const d of decorators) d(target, key, descriptor);
  };
};

@ApiTags('logs')
@ApiCookieAuth()
@ApiBearerAuth()
@Controller('api')
@UseGuards(SessionGuard)
export class LogsController {
  constructor(private readonly logs: LogsService) {}

  @Get('logs')
  @AllowUsers(...EVERY_ROLE)
  @ApiFilters()
  @ApiOperation({ summary: "The caller's request logs, newest first (status: ok, error or a code)" })
  async list(@CurrentUser() user: SessionUser, @Query() query: unknown): Promise<LogPage> {
    return this.logs.page(validate(logQuerySchema, query, 'query'), user.id, false);
  }

  @Get('logs/:requestId')
  @AllowUsers(...EVERY_ROLE)
  @ApiOperation({ summary: 'One of your requests in detail (bodies are not stored)' })
  async detail(
    @CurrentUser() user: SessionUser,
    @Param('requestId') id: string,
  ): Promise<{ log: LogDetail }> {
    return { log: await this.logs.detail(validate(requestIdSchema, id, 'request id'), user.id) };
  }

  @Get('admin/logs')
  @Allow(...READERS)
  @ApiFilters(['userId'])
  @ApiOperation({ summary: "Every user's request logs" })
  async listAll(@Query() query: unknown): Promise<LogPage> {
    return this.logs.page(validate(adminLogQuerySchema, query, 'query'), undefined, true);
  }

  @Get('admin/logs/:requestId')
  @Allow(...READERS)
  @ApiOperation({ summary: 'Any request in detail' })
  async detailAny(@Param('requestId') id: string): Promise<{ log: LogDetail }> {
    return { log: await this.logs.detail(validate(requestIdSchema, id, 'request id')) };
  }
}
