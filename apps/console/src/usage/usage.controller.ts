import { Controller, Get, Query, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiCookieAuth, ApiOperation, ApiQuery, ApiTags } from '@nestjs/swagger';
import { z } from 'zod';
import { validate } from '../http/validate.js';
import { timeSchema } from '../logs/log-query.schema.js';
import { AllowUsers, CurrentUser, EVERY_ROLE, type SessionUser } from '../session/principal.js';
import { SessionGuard } from '../session/session.guard.js';
import { type UsageReport, UsageService } from './usage.service.js';

const DAY_MS = 86_400_000;
/** Long enough for a year's report, short enough that one query stays cheap. */
const MAX_RANGE_DAYS = 400;

export const usageQuerySchema = z
  .strictObject({ from: timeSchema.optional(), to: timeSchema.optional() })
  .transform(({ from, to }) => {
    const end = to ?? new Date();
    return { from: from ?? new Date(end.getTime() - 30 * DAY_MS), to: end };
  })
  .refine(({ from, to }) => from < to, 'from must be before to')
  .refine(({ from, to }) => to.getTime() - from.getTime() <= MAX_RANGE_DAYS * DAY_MS, {
    message: `the range may span at most ${MAX_RANGE_DAYS} days`,
  });

@ApiTags('usage')
@ApiCookieAuth()
@ApiBearerAuth()
@Controller('api')
@UseGuards(SessionGuard)
export class UsageController {
  constructor(private readonly usage: UsageService) {}

  @Get('usage')
  @AllowUsers(...EVERY_ROLE)
  @ApiQuery({ name: 'from', required: false, type: String })
  @ApiQuery({ name: 'to', required: false, type: String })
  @ApiOperation({
    summary: 'Balance, and spend and tokens per UTC day and model (default: the last 30 days)',
  })
  async report(@CurrentUser() user: SessionUser, @Query() query: unknown): Promise<UsageReport> {
    const { from, to } = validate(usageQuerySchema, query, 'query');
    return this.usage.report(user.id, from, to);
  }
}
