import { Body, Controller, Get, HttpCode, Param, Post, Query, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiBody, ApiCookieAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import { type AuditBy, AuditedBy } from '../audit/audit-context.js';
import { ApiListQuery } from '../http/api-list-query.js';
import { validate } from '../http/validate.js';
import { uuidSchema } from '../keys/keys.schema.js';
import { jsonSchema } from '../openapi.js';
import { Allow, CurrentPrincipal, type Principal } from '../session/principal.js';
import { SessionGuard } from '../session/session.guard.js';
import { type AdminTokenView } from './admin-token-view.js';
import { createAdminTokenSchema, listAdminTokensSchema } from './admin-tokens.schema.js';
import { AdminTokens } from './admin-tokens.service.js';

/** Named admin tokens: admins manage them (they grant rights), auditors see the list. */
@ApiTags('admin')
@ApiCookieAuth()
@ApiBearerAuth()
@Controller('api/admin/tokens')
@UseGuards(SessionGuard)
@Allow()
export class AdminTokensController {
  constructor(private readonly tokens: AdminTokens) {}

  @Get()
  @Allow('auditor')
  @ApiListQuery(listAdminTokensSchema)
  @ApiOperation({
    summary:
      'A page of admin tokens, newest first: name, role, expiry, last use and state (never the secret)',
  })
  async list(@Query() query: unknown): Promise<{ tokens: AdminTokenView[]; nextCursor: string | null }> {
    const page = await this.tokens.list(validate(listAdminTokensSchema, query, 'query'));
    return { tokens: page.items, nextCursor: page.nextCursor };
  }

  @Post()
  @HttpCode(201)
  @ApiOperation({ summary: 'Create a token; the response is the only time its secret is shown' })
  @ApiBody({ schema: jsonSchema(createAdminTokenSchema) })
  async create(
    @CurrentPrincipal() p: Principal,
    @AuditedBy() by: AuditBy,
    @Body() body: unknown,
  ): Promise<{ token: AdminTokenView; secret: string }> {
    return this.tokens.create(validate(createAdminTokenSchema, body, 'body'), p, by);
  }

  @Post(':id/revoke')
  @HttpCode(200)
  @ApiOperation({ summary: 'Revoke a token at once (revoking twice is a no-op)' })
  async revoke(@AuditedBy() by: AuditBy, @Param('id') id: string): Promise<{ token: AdminTokenView }> {
    return { token: await this.tokens.revoke(validate(uuidSchema, id, 'token id'), by) };
  }
}
