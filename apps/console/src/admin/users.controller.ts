import { Body, Controller, Get, HttpCode, Param, Patch, Post, Query, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiBody, ApiCookieAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import { type AuditBy, AuditedBy } from '../audit/audit-context.js';
import { validate } from '../http/validate.js';
import { type Announcement } from '../keys/key-invalidations.service.js';
import { uuidSchema } from '../keys/keys.schema.js';
import { ApiListQuery } from '../http/api-list-query.js';
import { jsonSchema } from '../openapi.js';
import { Allow, CurrentPrincipal, type Principal } from '../session/principal.js';
import { SessionGuard } from '../session/session.guard.js';
import { createUserSchema, grantSchema, listUsersSchema, updateUserSchema } from './users.schema.js';
import { UsersService, type UserView } from './users.service.js';

const actingUser = (p: Principal): string | null => (p.kind === 'session' ? p.user.id : null);

@ApiTags('admin')
@ApiCookieAuth()
@ApiBearerAuth()
@Controller('api/admin/users')
@UseGuards(SessionGuard)
@Allow()
export class UsersController {
  constructor(private readonly users: UsersService) {}

  @Get()
  @Allow('auditor')
  @ApiListQuery(listUsersSchema)
  @ApiOperation({
    summary:
      'A page of users in email order, with role, status, groups and balance; q: the start of an email; `nextCursor`: the following page',
  })
  async list(@Query() query: unknown): Promise<{ users: UserView[]; nextCursor: string | null }> {
    const page = await this.users.list(validate(listUsersSchema, query, 'query'));
    return { users: page.items, nextCursor: page.nextCursor };
  }

  @Post()
  @HttpCode(201)
  @ApiOperation({ summary: 'Create a user with a password' })
  @ApiBody({ schema: jsonSchema(createUserSchema) })
  async create(@AuditedBy() by: AuditBy, @Body() body: unknown): Promise<{ user: UserView }> {
    return { user: await this.users.create(validate(createUserSchema, body, 'body'), by) };
  }

  @Patch(':id')
  @ApiOperation({ summary: 'Disable or enable a user, change the role or the groups' })
  @ApiBody({ schema: jsonSchema(updateUserSchema) })
  async update(
    @CurrentPrincipal() p: Principal,
    @AuditedBy() by: AuditBy,
    @Param('id') id: string,
    @Body() body: unknown,
  ): Promise<{ user: UserView; invalidation: Announcement }> {
    const userId = validate(uuidSchema, id, 'user id');
    return this.users.update(userId, validate(updateUserSchema, body, 'body'), actingUser(p), by);
  }

  @Post(':id/grants')
  @HttpCode(200)
  @ApiOperation({ summary: 'Grant credits (negative takes back); returns the new balance' })
  @ApiBody({ schema: jsonSchema(grantSchema) })
  async grant(
    @CurrentPrincipal() p: Principal,
    @AuditedBy() by: AuditBy,
    @Param('id') id: string,
    @Body() body: unknown,
  ): Promise<{ balanceCredits: number }> {
    const userId = validate(uuidSchema, id, 'user id');
    const { credits, note } = validate(grantSchema, body, 'body');
    return { balanceCredits: await this.users.grant(userId, credits, note, actingUser(p), by) };
  }
}
