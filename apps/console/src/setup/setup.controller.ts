import { Body, Controller, Get, HttpCode, Inject, Post, Req, Res, UseGuards } from '@nestjs/common';
import { ApiBody, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { type Kysely } from 'kysely';
import { hashPassword } from '#libs/auth';
import { adminExists, createFirstAdmin, type Database } from '#libs/db';
import { auditByOf } from '../audit/audit-context.js';
import { AuditTrail } from '../audit/audit-trail.service.js';
import { answerSignedIn, type SessionResponse } from '../auth/auth.controller.js';
import { setupSchema } from '../auth/auth.schema.js';
import { AuthService } from '../auth/auth.service.js';
import { type ConsoleSettings } from '../console-settings.js';
import { nanosOf } from '../credits.js';
import { ApiError } from '../http/api-error.js';
import { validate } from '../http/validate.js';
import { jsonSchema } from '../openapi.js';
import { sessionIdOf } from '../session/cookies.js';
import { type ConsoleRequest, Public } from '../session/principal.js';
import { SessionGuard } from '../session/session.guard.js';
import { DB, SETTINGS } from '../tokens.js';
import { SetupTokens } from './setup-token.store.js';

@ApiTags('session')
@Controller('api/setup')
@UseGuards(SessionGuard)
@Public()
export class SetupController {
  constructor(
    @Inject(DB) private readonly db: Kysely<Database>,
    @Inject(SETTINGS) private readonly settings: ConsoleSettings,
    private readonly tokens: SetupTokens,
    private readonly auth: AuthService,
    private readonly audit: AuditTrail,
  ) {}

  @Get('status')
  @ApiOperation({ summary: 'Whether the first admin still has to be created' })
  async status(): Promise<{ needed: boolean }> {
    return { needed: !(await adminExists(this.db)) };
  }

  @Post()
  @HttpCode(200)
  @ApiOperation({ summary: 'Create the first admin with the one-time setup token, and sign in' })
  @ApiBody({ schema: jsonSchema(setupSchema) })
  async setup(
    @Body() body: unknown,
    @Req() req: ConsoleRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<SessionResponse> {
    const input = validate(setupSchema, body, 'body');
    if (await adminExists(this.db))
      throw new ApiError('forbidden', 'Setup is done: an admin exists. Sign in.');
    if (!(await this.tokens.consume(input.token))) {
      await this.audit.refused(auditByOf(req), {
        action: 'setup.admin',
        target: { type: 'user' },
        after: { email: input.email },
        reason: 'invalid, expired or used setup token',
      });
      throw new ApiError(
        'forbidden',
        'This setup link is invalid, expired or used. Restart the console for a new one.',
      );
    }
    const admin = await createFirstAdmin(this.db, {
      email: input.email,
      passwordHash: await hashPassword(input.password),
      grantNanos: nanosOf(this.settings.defaultGrantCredits),
    });
    if (!admin) throw new ApiError('forbidden', 'Setup is done: an admin exists. Sign in.');
    await this.audit.record(
      { actor: { kind: 'user', id: admin.id, email: admin.email }, origin: auditByOf(req).origin },
      {
        action: 'setup.admin',
        target: { type: 'user', id: admin.id },
        after: { email: admin.email, role: 'admin' },
      },
    );
    return answerSignedIn(reply, await this.auth.openSession(admin, sessionIdOf(req)), this.settings);
  }
}
