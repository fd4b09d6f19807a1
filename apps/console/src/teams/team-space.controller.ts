import { Body, Controller, Get, HttpCode, Param, Post, Query, Res, UseGuards } from '@nestjs/common';
import { ApiBody, ApiCookieAuth, ApiOperation, ApiQuery, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { type AuditBy, AuditedBy } from '../audit/audit-context.js';
import { announced } from '../budgets/budgets.controller.js';
import { ApiListQuery } from '../http/api-list-query.js';
import { validate } from '../http/validate.js';
import { type Announcement } from '../keys/key-invalidations.service.js';
import { listKeysSchema, uuidSchema } from '../keys/keys.schema.js';
import { type KeyView } from '../keys/key-view.js';
import { adminLogQuerySchema } from '../logs/log-query.schema.js';
import { type LogPage } from '../logs/logs.service.js';
import { jsonSchema } from '../openapi.js';
import { AllowUsers, CurrentUser, EVERY_ROLE, type SessionUser } from '../session/principal.js';
import { SessionGuard } from '../session/session.guard.js';
import { usageQuerySchema } from '../usage/usage.controller.js';
import { type UsageReport } from '../usage/usage.service.js';
import { createTeamKeySchema, listMembersSchema } from './teams.schema.js';
import { type MyTeamView, TeamSpaceService, type TeamKeyView } from './team-space.service.js';
import { type MemberView } from './team-view.js';

const teamId = (id: string): string => validate(uuidSchema, id, 'team id');

/**
 * The caller's teams (docs/teams.md): members see theirs and manage their own team keys, team
 * admins every member's, with the team's usage and logs. Signed-in users only (a team is about
 * its members; admin tokens use /api/admin/teams); a team the caller does not belong to is 403,
 * recorded in the audit trail.
 */
@ApiTags('teams')
@ApiCookieAuth()
@Controller('api/teams')
@UseGuards(SessionGuard)
@AllowUsers(...EVERY_ROLE)
export class TeamSpaceController {
  constructor(private readonly space: TeamSpaceService) {}

  @Get()
  @ApiOperation({ summary: 'The teams you belong to, and whether you are their admin' })
  async mine(@CurrentUser() user: SessionUser): Promise<{ teams: MyTeamView[] }> {
    return { teams: await this.space.mine(user) };
  }

  @Get(':id')
  @ApiOperation({ summary: 'One of your teams: groups, balance and spend' })
  async team(
    @CurrentUser() user: SessionUser,
    @AuditedBy() by: AuditBy,
    @Param('id') id: string,
  ): Promise<{ team: MyTeamView }> {
    return { team: await this.space.team(user, teamId(id), by) };
  }

  @Get(':id/members')
  @ApiListQuery(listMembersSchema)
  @ApiOperation({ summary: "A page of the team's members in email order (team admins)" })
  async members(
    @CurrentUser() user: SessionUser,
    @AuditedBy() by: AuditBy,
    @Param('id') id: string,
    @Query() query: unknown,
  ): Promise<{ members: MemberView[]; nextCursor: string | null }> {
    const q = validate(listMembersSchema, query, 'query');
    const page = await this.space.members(user, teamId(id), q, by);
    return { members: page.items, nextCursor: page.nextCursor };
  }

  @Get(':id/keys')
  @ApiListQuery(listKeysSchema)
  @ApiOperation({ summary: "A page of your keys of the team, newest first; a team admin's: every member's" })
  async keys(
    @CurrentUser() user: SessionUser,
    @AuditedBy() by: AuditBy,
    @Param('id') id: string,
    @Query() query: unknown,
  ): Promise<{ keys: TeamKeyView[]; nextCursor: string | null }> {
    const page = await this.space.listKeys(user, teamId(id), validate(listKeysSchema, query, 'query'), by);
    return { keys: page.items, nextCursor: page.nextCursor };
  }

  @Post(':id/keys')
  @AllowUsers('operator', 'member')
  @HttpCode(201)
  @ApiOperation({
    summary:
      "Create a key spending the team's credits (userId: a member's, team admins only); the secret is shown once",
  })
  @ApiBody({ schema: jsonSchema(createTeamKeySchema) })
  async createKey(
    @CurrentUser() user: SessionUser,
    @AuditedBy() by: AuditBy,
    @Param('id') id: string,
    @Body() body: unknown,
  ): Promise<{ key: KeyView; secret: string }> {
    return this.space.createKey(user, teamId(id), validate(createTeamKeySchema, body, 'body'), by);
  }

  @Post(':id/keys/:keyId/revoke')
  @AllowUsers('operator', 'member')
  @HttpCode(200)
  @ApiOperation({ summary: "Revoke your team key; a team admin's: any member's (202: announcement pending)" })
  async revokeKey(
    @CurrentUser() user: SessionUser,
    @AuditedBy() by: AuditBy,
    @Param('id') id: string,
    @Param('keyId') keyId: string,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<{ key: KeyView; invalidation: Announcement }> {
    return announced(
      reply,
      200,
      await this.space.revokeKey(user, teamId(id), validate(uuidSchema, keyId, 'key id'), by),
    );
  }

  @Get(':id/usage')
  @ApiQuery({ name: 'from', required: false, type: String })
  @ApiQuery({ name: 'to', required: false, type: String })
  @ApiOperation({
    summary: "The team's balance and spend per day and model: yours, or a team admin's: everyone's",
  })
  async usage(
    @CurrentUser() user: SessionUser,
    @AuditedBy() by: AuditBy,
    @Param('id') id: string,
    @Query() query: unknown,
  ): Promise<UsageReport> {
    const { from, to } = validate(usageQuerySchema, query, 'query');
    return this.space.usageReport(user, teamId(id), from, to, by);
  }

  @Get(':id/logs')
  @ApiOperation({
    summary: "The team's request logs: yours, or a team admin's: everyone's (filter by userId)",
  })
  async logs(
    @CurrentUser() user: SessionUser,
    @AuditedBy() by: AuditBy,
    @Param('id') id: string,
    @Query() query: unknown,
  ): Promise<LogPage> {
    return this.space.logPage(user, teamId(id), validate(adminLogQuerySchema, query, 'query'), by);
  }
}
