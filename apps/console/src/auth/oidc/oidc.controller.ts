import { Controller, Get, Inject, Req, Res, UseGuards } from '@nestjs/common';
import { ApiOperation, ApiQuery, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { type ConsoleSettings } from '../../console-settings.js';
import { sessionIdOf, setSessionCookie } from '../../session/cookies.js';
import { type ConsoleRequest, Public } from '../../session/principal.js';
import { SessionGuard } from '../../session/session.guard.js';
import { SETTINGS } from '../../tokens.js';
import { OidcSignIn } from './oidc-sign-in.service.js';

/** Binds a sign-in to the browser that started it; scoped to the callback's path, gone once used. */
const BINDING_COOKIE = 'gw_oidc';
const BINDING_PATH = '/api/auth/oidc';
/** A console path to land on, never another origin (`//host`, `/\host`). */
const CONSOLE_PATH = /^\/(?![/\\])[\x21-\x7e]*$/;

export const landingOf = (next: unknown): string =>
  typeof next === 'string' && CONSOLE_PATH.test(next) && !next.startsWith('/sign-in') ? next : '/keys';

@ApiTags('session')
@Controller('api/auth/oidc')
@UseGuards(SessionGuard)
export class OidcController {
  constructor(
    private readonly oidc: OidcSignIn,
    @Inject(SETTINGS) private readonly settings: ConsoleSettings,
  ) {}

  @Get('start')
  @Public()
  @ApiOperation({ summary: 'Start single sign-on: redirects to the identity provider (PKCE, state, nonce)' })
  @ApiQuery({ name: 'next', required: false, description: 'The console path to land on once signed in' })
  @ApiResponse({ status: 302, description: 'To the provider’s authorization endpoint' })
  async start(@Req() req: ConsoleRequest, @Res() reply: FastifyReply): Promise<void> {
    const { url, browserBinding } = await this.oidc.start(landingOf((req.query as { next?: unknown }).next));
    // SameSite=Lax: the provider's redirect back is a top-level GET, which carries it.
    void reply.setCookie(BINDING_COOKIE, browserBinding, {
      path: BINDING_PATH,
      httpOnly: true,
      sameSite: 'lax',
      secure: this.settings.cookieSecure,
      maxAge: Math.ceil(this.settings.oidc!.stateTtlMs / 1000),
    });
    void reply.header('cache-control', 'no-store').redirect(url, 302);
  }

  @Get('callback')
  @Public()
  @ApiOperation({
    summary:
      'The provider’s redirect back: validates it, opens a session (gw_session) and redirects into the console',
  })
  @ApiResponse({ status: 302, description: 'Signed in: to the console path the sign-in started for' })
  @ApiResponse({ status: 400, description: 'Unknown, expired, replayed or foreign state' })
  @ApiResponse({ status: 401, description: 'The provider refused, or the ID token did not validate' })
  @ApiResponse({ status: 403, description: 'The claims may not sign in (domain, unverified email)' })
  @ApiResponse({ status: 503, description: 'The identity provider cannot be reached' })
  async callback(@Req() req: ConsoleRequest, @Res() reply: FastifyReply): Promise<void> {
    const query = new URLSearchParams(req.url.split('?')[1] ?? '');
    const { signedIn, next } = await this.oidc.finish(
      query,
      req.cookies[BINDING_COOKIE],
      { ip: req.ip, userAgent: req.headers['user-agent'] ?? null },
      sessionIdOf(req),
    );
    // Kept through a refused callback: a forged one must not end the genuine sign-in under way.
    void reply.clearCookie(BINDING_COOKIE, {
      path: BINDING_PATH,
      httpOnly: true,
      sameSite: 'lax',
      secure: this.settings.cookieSecure,
    });
    setSessionCookie(reply, signedIn.session.id, this.settings);
    void reply.header('cache-control', 'no-store').redirect(next, 302);
  }
}
