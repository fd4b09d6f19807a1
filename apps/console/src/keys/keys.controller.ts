import { Body, Controller, Get, HttpCode, Param, Post, Query, Res, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiBody, ApiCookieAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { type AuditBy, AuditedBy } from '../audit/audit-context.js';
import { ApiListQuery } from '../http/api-list-query.js';
import { validate } from '../http/validate.js';
import { jsonSchema } from '../openapi.js';
import { Allow, AllowUsers, CurrentUser, EVERY_ROLE, type SessionUser } from '../session/principal.js';
import { SessionGuard } from '../session/session.guard.js';
import { createKeySchema, listAllKeysSchema, listKeysSchema, uuidSchema } from './keys.schema.js';
import { type Announcement } from './key-invalidations.service.js';
import { type AdminKeyView, KeysService } from './keys.service.js';
import { type KeyView } from './key-view.js';

@ApiTags('keys')
@ApiCookieAuth()
@ApiBearerAuth()
@Controller('api')
@UseGuards(SessionGuard)
export class KeysController {
  constructor(private readonly keys: KeysService) {}

  @Get('keys')
  @AllowUsers(...EVERY_ROLE)
  @ApiListQuery(listKeysSchema)
  @ApiOperation({
    summary:
      "A page of the caller's API keys, newest first (display prefix only); q: the start of a name or prefix",
  })
  async list(
    @CurrentUser() user: SessionUser,
    @Query() query: unknown,
  ): Promise<{ keys: KeyView[]; nextCursor: string | null }> {
    const page = await this.keys.list(user.id, validate(listKeysSchema, query, 'query'));
    return { keys: page.items, nextCursor: page.nextCursor };
  }

  @Post('keys')
  @AllowUsers('operator', 'member')
  @HttpCode(201)
  @ApiOperation({ summary: 'Create a key; the response is the only time the secret is shown' })
  @ApiBody({ schema: jsonSchema(createKeySchema) })
  async create(
    @CurrentUser() user: SessionUser,
    @AuditedBy() by: AuditBy,
    @Body() body: unknown,
  ): Promise<{ key: KeyView; secret: string }> {
    return this.keys.create(user, validate(createKeySchema, body, 'body'), by);
  }

  @Post('keys/:id/revoke')
  @AllowUsers('operator', 'member')
  @HttpCode(200)
  @ApiOperation({
    summary:
      'Revoke one of your keys; every edge refuses it within a second (202: stored, announcement pending)',
  })
  async revoke(
    @CurrentUser() user: SessionUser,
    @AuditedBy() by: AuditBy,
    @Param('id') id: string,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<Revoked> {
    return revoked(reply, await this.keys.revoke(validate(uuidSchema, id, 'key id'), by, user.id));
  }

  @Get('admin/keys')
  @Allow('auditor')
  @ApiListQuery(listAllKeysSchema)
  @ApiOperation({
    summary: "A page of every user's keys (or one user's, one team's), newest first, with their owners",
  })
  async listAll(@Query() query: unknown): Promise<{ keys: AdminKeyView[]; nextCursor: string | null }> {
    const page = await this.keys.listAll(validate(listAllKeysSchema, query, 'query'));
    return { keys: page.items, nextCursor: page.nextCursor };
  }

  @Post('admin/keys/:id/revoke')
  @HttpCode(200)
  @Allow()
  @ApiOperation({ summary: "Revoke anyone's key (admin); 202: stored, announcement pending" })
  async revokeAny(
    @AuditedBy() by: AuditBy,
    @Param('id') id: string,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<Revoked> {
    return revoked(reply, await this.keys.revoke(validate(uuidSchema, id, 'key id'), by));
  }
}

type Revoked = { key: KeyView; invalidation: Announcement };

/** 202 while the edges are not told yet: the revocation is stored and the console keeps announcing it. */
function revoked(reply: FastifyReply, result: Revoked): Revoked {
  if (result.invalidation === 'pending') void reply.status(202);
  return result;
}
