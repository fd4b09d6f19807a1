import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query, Res, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiBody, ApiCookieAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { type AuditBy, AuditedBy } from '../audit/audit-context.js';
import { ApiListQuery } from '../http/api-list-query.js';
import { type Page } from '../http/page.js';
import { validate } from '../http/validate.js';
import { type Announcement } from '../keys/key-invalidations.service.js';
import { uuidSchema } from '../keys/keys.schema.js';
import { jsonSchema } from '../openapi.js';
import {
  Allow,
  AllowUsers,
  CurrentPrincipal,
  CurrentUser,
  EVERY_ROLE,
  type Principal,
  type SessionUser,
} from '../session/principal.js';
import { SessionGuard } from '../session/session.guard.js';
import { type BudgetView } from './budget-view.js';
import { createBudgetSchema, listBudgetsSchema } from './budgets.schema.js';
import { BudgetsService } from './budgets.service.js';

type Created = { budget: BudgetView; invalidation: Announcement };
export type BudgetsPage = { budgets: BudgetView[]; nextCursor: string | null };
export const budgetsReply = (page: Page<BudgetView>): BudgetsPage => ({
  budgets: page.items,
  nextCursor: page.nextCursor,
});
type Deleted = { invalidation: Announcement };

/** 202 while the edges are not told yet (Redis unreachable): stored, and announced by the outbox. */
export function announced<T extends { invalidation: Announcement }>(
  reply: FastifyReply,
  status: number,
  result: T,
): T {
  void reply.status(result.invalidation === 'pending' ? 202 : status);
  return result;
}

@ApiTags('budgets')
@ApiCookieAuth()
@ApiBearerAuth()
@Controller('api')
@UseGuards(SessionGuard)
export class BudgetsController {
  constructor(private readonly budgets: BudgetsService) {}

  @Get('budgets')
  @AllowUsers(...EVERY_ROLE)
  @ApiListQuery(listBudgetsSchema)
  @ApiOperation({ summary: "A page of the caller's own budgets (over all its keys; set by admins)" })
  async mine(@CurrentUser() user: SessionUser, @Query() query: unknown): Promise<BudgetsPage> {
    const q = validate(listBudgetsSchema, query, 'query');
    return budgetsReply(await this.budgets.list({ userId: user.id, keyId: null }, q));
  }

  @Get('keys/:id/budgets')
  @AllowUsers(...EVERY_ROLE)
  @ApiListQuery(listBudgetsSchema)
  @ApiOperation({ summary: "A page of one of your keys' budgets: spent, left and the next reset" })
  async listOfKey(
    @CurrentUser() user: SessionUser,
    @Param('id') id: string,
    @Query() query: unknown,
  ): Promise<BudgetsPage> {
    const owner = await this.budgets.keyOwner(validate(uuidSchema, id, 'key id'), user.id);
    return budgetsReply(await this.budgets.list(owner, validate(listBudgetsSchema, query, 'query')));
  }

  @Post('keys/:id/budgets')
  @AllowUsers('operator', 'member')
  @ApiOperation({ summary: 'Add a budget to one of your keys (per day, week, month or lifetime)' })
  @ApiBody({ schema: jsonSchema(createBudgetSchema) })
  async createForKey(
    @CurrentUser() user: SessionUser,
    @AuditedBy() by: AuditBy,
    @Param('id') id: string,
    @Body() body: unknown,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<Created> {
    const owner = await this.budgets.keyOwner(validate(uuidSchema, id, 'key id'), user.id);
    return announced(
      reply,
      201,
      await this.budgets.create(owner, validate(createBudgetSchema, body, 'body'), user.id, by),
    );
  }

  @Delete('keys/:id/budgets/:budgetId')
  @AllowUsers('operator', 'member')
  @HttpCode(200)
  @ApiOperation({ summary: "Remove one of your keys' budgets" })
  async removeOfKey(
    @CurrentUser() user: SessionUser,
    @AuditedBy() by: AuditBy,
    @Param('id') id: string,
    @Param('budgetId') budgetId: string,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<Deleted> {
    const owner = await this.budgets.keyOwner(validate(uuidSchema, id, 'key id'), user.id);
    return announced(
      reply,
      200,
      await this.budgets.remove(owner, validate(uuidSchema, budgetId, 'budget id'), by),
    );
  }

  @Get('admin/users/:id/budgets')
  @Allow('auditor')
  @ApiListQuery(listBudgetsSchema)
  @ApiOperation({ summary: "A page of a user's budgets over all its keys" })
  async listOfUser(@Param('id') id: string, @Query() query: unknown): Promise<BudgetsPage> {
    const owner = await this.budgets.userOwner(validate(uuidSchema, id, 'user id'));
    return budgetsReply(await this.budgets.list(owner, validate(listBudgetsSchema, query, 'query')));
  }

  @Post('admin/users/:id/budgets')
  @Allow()
  @ApiOperation({ summary: 'Add a budget over all of a user’s keys (admin)' })
  @ApiBody({ schema: jsonSchema(createBudgetSchema) })
  async createForUser(
    @CurrentPrincipal() p: Principal,
    @AuditedBy() by: AuditBy,
    @Param('id') id: string,
    @Body() body: unknown,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<Created> {
    const owner = await this.budgets.userOwner(validate(uuidSchema, id, 'user id'));
    const createdBy = p.kind === 'session' ? p.user.id : null;
    return announced(
      reply,
      201,
      await this.budgets.create(owner, validate(createBudgetSchema, body, 'body'), createdBy, by),
    );
  }

  @Delete('admin/users/:id/budgets/:budgetId')
  @HttpCode(200)
  @Allow()
  @ApiOperation({ summary: "Remove a user's budget (admin)" })
  async removeOfUser(
    @AuditedBy() by: AuditBy,
    @Param('id') id: string,
    @Param('budgetId') budgetId: string,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<Deleted> {
    const owner = await this.budgets.userOwner(validate(uuidSchema, id, 'user id'));
    return announced(
      reply,
      200,
      await this.budgets.remove(owner, validate(uuidSchema, budgetId, 'budget id'), by),
    );
  }
}
