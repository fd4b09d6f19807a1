import {
  Body,
  Controller,
  Delete,
  Get,
  HttpCode,
  Param,
  Patch,
  Post,
  Query,
  Res,
  UseGuards,
} from '@nestjs/common';
import { ApiBearerAuth, ApiBody, ApiCookieAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { grantSchema } from '../admin/users.schema.js';
import { type AuditBy, AuditedBy } from '../audit/audit-context.js';
import { announced, type BudgetsPage, budgetsReply } from '../budgets/budgets.controller.js';
import { createBudgetSchema, FIRST_BUDGETS, listBudgetsSchema } from '../budgets/budgets.schema.js';
import { BudgetsService, teamBudgetOwner } from '../budgets/budgets.service.js';
import { type BudgetView } from '../budgets/budget-view.js';
import { ApiListQuery } from '../http/api-list-query.js';
import { type Page } from '../http/page.js';
import { validate } from '../http/validate.js';
import { type Announcement } from '../keys/key-invalidations.service.js';
import { uuidSchema } from '../keys/keys.schema.js';
import { jsonSchema } from '../openapi.js';
import { Allow, CurrentPrincipal, type Principal } from '../session/principal.js';
import { SessionGuard } from '../session/session.guard.js';
import {
  addMemberSchema,
  createTeamSchema,
  FIRST_MEMBERS,
  listMembersSchema,
  listTeamsSchema,
  memberRoleSchema,
  updateTeamSchema,
} from './teams.schema.js';
import { type TeamGrantView, TeamsService } from './teams.service.js';
import { type MemberView, type TeamView } from './team-view.js';

const actingUser = (p: Principal): string | null => (p.kind === 'session' ? p.user.id : null);

type MembersPage = { members: MemberView[]; nextCursor: string | null };
const membersReply = (page: Page<MemberView>): MembersPage => ({
  members: page.items,
  nextCursor: page.nextCursor,
});

interface TeamDetail {
  readonly team: TeamView;
  readonly members: MemberView[];
  readonly membersNextCursor: string | null;
  readonly budgets: BudgetView[];
  readonly budgetsNextCursor: string | null;
  readonly grants: TeamGrantView[];
}
const teamId = (id: string): string => validate(uuidSchema, id, 'team id');

/**
 * Teams for admins (docs/teams.md, docs/console-api.md): teams, their members and team admins,
 * their groups, credits and budgets. Admins only; auditors read.
 */
@ApiTags('teams')
@ApiCookieAuth()
@ApiBearerAuth()
@Controller('api/admin/teams')
@UseGuards(SessionGuard)
@Allow()
export class TeamsAdminController {
  constructor(
    private readonly teams: TeamsService,
    private readonly budgets: BudgetsService,
  ) {}

  @Get()
  @Allow('auditor')
  @ApiListQuery(listTeamsSchema)
  @ApiOperation({
    summary:
      'A page of teams in name order with groups, member count, balance and spend; q: the start of a name',
  })
  async list(@Query() query: unknown): Promise<{ teams: TeamView[]; nextCursor: string | null }> {
    const page = await this.teams.list(validate(listTeamsSchema, query, 'query'));
    return { teams: page.items, nextCursor: page.nextCursor };
  }

  @Post()
  @HttpCode(201)
  @ApiOperation({ summary: 'Create a team (a name and the groups its keys may use)' })
  @ApiBody({ schema: jsonSchema(createTeamSchema) })
  async create(
    @CurrentPrincipal() p: Principal,
    @AuditedBy() by: AuditBy,
    @Body() body: unknown,
  ): Promise<{ team: TeamView }> {
    return { team: await this.teams.create(validate(createTeamSchema, body, 'body'), actingUser(p), by) };
  }

  @Get(':id')
  @Allow('auditor')
  @ApiOperation({
    summary:
      'One team with the first page of its members (membersNextCursor: the rest, from /members) and budgets, and its latest credit grants',
  })
  async get(@Param('id') id: string): Promise<TeamDetail> {
    const tid = teamId(id);
    const team = await this.teams.get(tid);
    const [members, budgets, grants] = await Promise.all([
      this.teams.members(tid, FIRST_MEMBERS),
      this.budgets.list(teamBudgetOwner(tid), FIRST_BUDGETS),
      this.teams.grants(tid),
    ]);
    return {
      team,
      members: members.items,
      membersNextCursor: members.nextCursor,
      budgets: budgets.items,
      budgetsNextCursor: budgets.nextCursor,
      grants,
    };
  }

  @Get(':id/members')
  @Allow('auditor')
  @ApiListQuery(listMembersSchema)
  @ApiOperation({ summary: "A page of the team's members in email order; q: the start of an email" })
  async listMembers(@Param('id') id: string, @Query() query: unknown): Promise<MembersPage> {
    return membersReply(await this.teams.members(teamId(id), validate(listMembersSchema, query, 'query')));
  }

  @Patch(':id')
  @ApiOperation({ summary: 'Rename a team or change the groups its keys may use (keys outside them stop)' })
  @ApiBody({ schema: jsonSchema(updateTeamSchema) })
  async update(
    @AuditedBy() by: AuditBy,
    @Param('id') id: string,
    @Body() body: unknown,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<{ team: TeamView; invalidation: Announcement }> {
    return announced(
      reply,
      200,
      await this.teams.update(teamId(id), validate(updateTeamSchema, body, 'body'), by),
    );
  }

  @Delete(':id')
  @HttpCode(200)
  @ApiOperation({ summary: 'Delete a team without keys (409 while it has any)' })
  async remove(@AuditedBy() by: AuditBy, @Param('id') id: string): Promise<{ deleted: true }> {
    await this.teams.remove(teamId(id), by);
    return { deleted: true };
  }

  @Post(':id/members')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Add a member (admin: true makes a team admin); the first page of the members',
  })
  @ApiBody({ schema: jsonSchema(addMemberSchema) })
  async addMember(
    @AuditedBy() by: AuditBy,
    @Param('id') id: string,
    @Body() body: unknown,
  ): Promise<MembersPage> {
    return membersReply(await this.teams.addMember(teamId(id), validate(addMemberSchema, body, 'body'), by));
  }

  @Patch(':id/members/:userId')
  @ApiOperation({ summary: 'Grant or revoke team admin of a member; the first page of the members' })
  @ApiBody({ schema: jsonSchema(memberRoleSchema) })
  async setAdmin(
    @AuditedBy() by: AuditBy,
    @Param('id') id: string,
    @Param('userId') userId: string,
    @Body() body: unknown,
  ): Promise<MembersPage> {
    const { admin } = validate(memberRoleSchema, body, 'body');
    return membersReply(
      await this.teams.setAdmin(teamId(id), validate(uuidSchema, userId, 'user id'), admin, by),
    );
  }

  @Delete(':id/members/:userId')
  @HttpCode(200)
  @ApiOperation({ summary: 'Remove a member; its keys of the team stop working (202: announcement pending)' })
  async removeMember(
    @AuditedBy() by: AuditBy,
    @Param('id') id: string,
    @Param('userId') userId: string,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<{ invalidation: Announcement }> {
    return announced(
      reply,
      200,
      await this.teams.removeMember(teamId(id), validate(uuidSchema, userId, 'user id'), by),
    );
  }

  @Post(':id/grants')
  @HttpCode(200)
  @ApiOperation({ summary: "Grant credits to the team's account (negative takes back); the new balance" })
  @ApiBody({ schema: jsonSchema(grantSchema) })
  async grant(
    @CurrentPrincipal() p: Principal,
    @AuditedBy() by: AuditBy,
    @Param('id') id: string,
    @Body() body: unknown,
  ): Promise<{ balanceCredits: number }> {
    const { credits, note } = validate(grantSchema, body, 'body');
    return { balanceCredits: await this.teams.grant(teamId(id), credits, note, actingUser(p), by) };
  }

  @Get(':id/budgets')
  @Allow('auditor')
  @ApiListQuery(listBudgetsSchema)
  @ApiOperation({
    summary: "A page of the team's budgets (over all its keys): spent, left and the next reset",
  })
  async listBudgets(@Param('id') id: string, @Query() query: unknown): Promise<BudgetsPage> {
    const tid = teamId(id);
    await this.teams.get(tid);
    return budgetsReply(
      await this.budgets.list(teamBudgetOwner(tid), validate(listBudgetsSchema, query, 'query')),
    );
  }

  @Post(':id/budgets')
  @ApiOperation({ summary: 'Add a budget to the team (per day, week, month or lifetime)' })
  @ApiBody({ schema: jsonSchema(createBudgetSchema) })
  async createBudget(
    @CurrentPrincipal() p: Principal,
    @AuditedBy() by: AuditBy,
    @Param('id') id: string,
    @Body() body: unknown,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<{ budget: BudgetView; invalidation: Announcement }> {
    const tid = teamId(id);
    await this.teams.get(tid);
    const input = validate(createBudgetSchema, body, 'body');
    return announced(reply, 201, await this.budgets.create(teamBudgetOwner(tid), input, actingUser(p), by));
  }

  @Delete(':id/budgets/:budgetId')
  @HttpCode(200)
  @ApiOperation({ summary: "Remove a team's budget" })
  async removeBudget(
    @AuditedBy() by: AuditBy,
    @Param('id') id: string,
    @Param('budgetId') budgetId: string,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<{ invalidation: Announcement }> {
    const owner = teamBudgetOwner(teamId(id));
    return announced(
      reply,
      200,
      await this.budgets.remove(owner, validate(uuidSchema, budgetId, 'budget id'), by),
    );
  }
}
