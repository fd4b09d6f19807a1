import { Body, Controller, Get, HttpCode, Inject, Post, Req, Res, UseGuards } from '@nestjs/common';
import { ApiBody, ApiCookieAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { type ConsoleSettings } from '../console-settings.js';
import { validate } from '../http/validate.js';
import { jsonSchema } from '../openapi.js';
import { clearSessionCookie, sessionIdOf, setSessionCookie } from '../session/cookies.js';
import {
  Allow,
  type ConsoleRequest,
  CurrentPrincipal,
  EVERY_ROLE,
  isAdmin,
  type Principal,
  Public,
  roleOf,
} from '../session/principal.js';
import { SessionGuard } from '../session/session.guard.js';
import { SETTINGS } from '../tokens.js';
import { signInSchema } from './auth.schema.js';
import { AuthService, type SignedIn } from './auth.service.js';

export interface SessionResponse {
  readonly user: SignedIn['user'];
  readonly csrfToken: string;
  /** The base address for SDKs (OpenAI clients add /v1). */
  readonly gatewayUrl: string;
}

/** GET /api/session under an admin token: no user, the token's name and role instead. */
export interface TokenSessionResponse {
  readonly user: null;
  readonly csrfToken: null;
  readonly token: { readonly id: string | null; readonly name: string; readonly role: string };
  readonly admin: boolean;
  readonly gatewayUrl: string;
}

/** Sets the cookie of a freshly opened session and shapes the answer sign-in and setup share. */
export function answerSignedIn(
  reply: FastifyReply,
  signedIn: SignedIn,
  settings: ConsoleSettings,
): SessionResponse {
  setSessionCookie(reply, signedIn.session.id, settings);
  return {
    user: signedIn.user,
    csrfToken: signedIn.session.data.csrfToken,
    gatewayUrl: settings.gatewayUrl,
  };
}

/** What the sign-in page offers. */
export interface SignInMethods {
  readonly password: boolean;
  readonly sso: { readonly name: string; readonly startUrl: string } | null;
}

@ApiTags('session')
@Controller('api')
@UseGuards(SessionGuard)
export class AuthController {
  constructor(
    private readonly auth: AuthService,
    @Inject(SETTINGS) private readonly settings: ConsoleSettings,
  ) {}

  @Post('auth/sign-in')
  @HttpCode(200)
  @Public()
  @ApiOperation({ summary: 'Sign in with email and password; sets the gw_session cookie' })
  @ApiBody({ schema: jsonSchema(signInSchema) })
  async signIn(
    @Body() body: unknown,
    @Req() req: ConsoleRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<SessionResponse> {
    const { email, password } = validate(signInSchema, body, 'body');
    const origin = { ip: req.ip, userAgent: req.headers['user-agent'] ?? null };
    const signedIn = await this.auth.signIn(email, password, origin, sessionIdOf(req));
    return answerSignedIn(reply, signedIn, this.settings);
  }

  @Get('auth/methods')
  @Public()
  @ApiOperation({
    summary: 'How one signs in here: password, single sign-on (its name and start URL), or both',
  })
  methods(): SignInMethods {
    const oidc = this.settings.oidc;
    return {
      password: this.settings.passwordSignIn,
      sso: oidc ? { name: oidc.displayName, startUrl: '/api/auth/oidc/start' } : null,
    };
  }

  @Post('auth/sign-out')
  @Allow(...EVERY_ROLE)
  @HttpCode(204)
  @ApiCookieAuth()
  @ApiOperation({ summary: 'End the session (needs the x-csrf-token header)' })
  async signOut(
    @CurrentPrincipal() p: Principal,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<void> {
    if (p.kind === 'session') await this.auth.signOut(p.sessionId, p.user.id);
    clearSessionCookie(reply, this.settings);
  }

  @Get('session')
  @Allow(...EVERY_ROLE)
  @ApiCookieAuth()
  @ApiOperation({ summary: 'The signed-in user and the CSRF token of the session' })
  session(@CurrentPrincipal() p: Principal): SessionResponse | TokenSessionResponse {
    const gatewayUrl = this.settings.gatewayUrl;
    if (p.kind === 'token')
      return {
        user: null,
        csrfToken: null,
        token: { id: p.token.id, name: p.token.name, role: roleOf(p) },
        admin: isAdmin(p),
        gatewayUrl,
      };
    return {
      user: { id: p.user.id, email: p.user.email, role: p.user.role },
      csrfToken: p.csrfToken,
      gatewayUrl,
    };
  }
}
