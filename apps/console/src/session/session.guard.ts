import { createHash } from 'node:crypto';
import { type CanActivate, type ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { type Kysely } from 'kysely';
import { bearerToken } from '#libs/auth';
import { type Database, findUserById } from '#libs/db';
import { auditByOf, ENV_TOKEN_NAME, originOf } from '../audit/audit-context.js';
import { AuditTrail } from '../audit/audit-trail.service.js';
import { type ConsoleSettings } from '../console-settings.js';
import { ApiError } from '../http/api-error.js';
import { DB, SETTINGS } from '../tokens.js';
import { isAdminTokenLike, isWellFormedAdminToken } from '../tokens-admin/admin-token-secret.js';
import { AdminTokens } from '../tokens-admin/admin-tokens.service.js';
import { sessionIdOf } from './cookies.js';
import {
  type ConsoleRequest,
  type Principal,
  roleOf,
  ROUTE_RULE,
  type RouteRule,
  type TokenIdentity,
} from './principal.js';
import { safeEqual, SessionStore } from './session.store.js';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
export const CSRF_HEADER = 'x-csrf-token';
const sha256 = (s: string): string => createHash('sha256').update(s).digest('hex');

/**
 * The environment's CONSOLE_ADMIN_TOKEN, for bootstrap (before any named token exists): an admin.
 * Its audit name stays 'admin token', the name earlier records and config versions carry.
 */
export const BOOTSTRAP_TOKEN: TokenIdentity = { id: null, name: ENV_TOKEN_NAME, role: 'admin' };

/**
 * How the guard's 403s begin: a route's own refusals (a team you are not in, a group not yours)
 * say something else, so clients and the role-matrix test tell the two apart.
 */
export const ROLE_REFUSAL = 'Not allowed here: ';

/**
 * Why a caller may not use a route, in words ("needs ..."), or null when it may. Default deny: a
 * route that declares no rule is refused to everyone, so a forgotten declaration cannot open it.
 */
export function refusalOf(rule: RouteRule | undefined, principal: Principal): string | null {
  if (rule === undefined) return 'route declares no roles';
  if (rule.public) return null;
  if (principal.kind === 'token' && !rule.tokens)
    return 'needs a signed-in user (an admin token owns no keys)';
  const role = roleOf(principal);
  return rule.roles.includes(role) ? null : `needs the role ${rule.roles.join(' or ')} (you are ${role})`;
}

/**
 * Authenticates every API route (admin token or cookie session), enforces CSRF on mutating
 * cookie-authenticated requests, and the route's access level. The user row is read on every
 * request, so disabling a user or changing a role takes effect at once.
 */
@Injectable()
export class SessionGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly sessions: SessionStore,
    @Inject(DB) private readonly db: Kysely<Database>,
    @Inject(SETTINGS) private readonly settings: ConsoleSettings,
    private readonly audit: AuditTrail,
    private readonly tokens: AdminTokens,
  ) {}

  async canActivate(ctx: ExecutionContext): Promise<boolean> {
    const rule = this.reflector.getAllAndOverride<RouteRule | undefined>(ROUTE_RULE, [
      ctx.getHandler(),
      ctx.getClass(),
    ]);
    if (rule?.public) return true;
    const req = ctx.switchToHttp().getRequest<ConsoleRequest>();
    const principal = req.earlyPrincipal ?? (await this.authenticate(req));
    if (principal.kind === 'session' && !SAFE_METHODS.has(req.method))
      this.checkCsrf(req, principal.csrfToken);
    await this.refuseUnlessAllowed(req, rule, principal);
    req.principal = principal;
    return true;
  }

  /**
   * Authentication and the route's rule, before a large body is read (an onRequest hook): only a
   * caller the route allows can make the console buffer megabytes. CSRF is checked by canActivate
   * as on every route, with this principal.
   */
  async admitBeforeBody(req: ConsoleRequest, rule: RouteRule): Promise<void> {
    const principal = await this.authenticate(req);
    await this.refuseUnlessAllowed(req, rule, principal);
    req.earlyPrincipal = principal;
  }

  /** 403, audited as `access.refused`, unless the rule allows the principal. */
  private async refuseUnlessAllowed(
    req: ConsoleRequest,
    rule: RouteRule | undefined,
    principal: Principal,
  ): Promise<void> {
    const refusal = refusalOf(rule, principal);
    if (refusal === null) return;
    await this.audit.refused(auditByOf(req, principal), {
      action: 'access.refused',
      target: { type: 'route', id: `${req.method} ${req.routeOptions.url ?? req.url}` },
      reason: refusal,
    });
    throw new ApiError('forbidden', `${ROLE_REFUSAL}${refusal}.`);
  }

  private async authenticate(req: ConsoleRequest): Promise<Principal> {
    const auth = req.headers.authorization;
    if (auth !== undefined) return this.authenticateToken(req, auth);
    const sessionId = sessionIdOf(req);
    if (!sessionId) throw new ApiError('unauthenticated', 'Sign in first.');
    const session = await this.sessions.get(sessionId);
    if (!session) throw new ApiError('unauthenticated', 'Your session has ended; sign in again.');
    const user = await findUserById(this.db, session.userId);
    if (!user || user.status !== 'active') {
      await this.sessions.destroy(sessionId, session.userId);
      throw new ApiError('unauthenticated', 'Your session has ended; sign in again.');
    }
    return {
      kind: 'session',
      user: { id: user.id, email: user.email, role: user.role, groups: user.groups },
      sessionId,
      csrfToken: session.csrfToken,
    };
  }

  /**
   * A bearer token: a named one (`gwa_...`, looked up by its hash) or the environment's bootstrap
   * token. Every refusal is a 401, audited with the token's name when the token exists (expired or
   * revoked), so a leaked-then-revoked token's attempts show up under its name.
   */
  private async authenticateToken(req: ConsoleRequest, auth: string): Promise<Principal> {
    const token = bearerToken(auth);
    const route = { type: 'route', id: `${req.method} ${req.routeOptions.url ?? req.url}` };
    const expected = this.settings.adminToken;
    // Hashing both sides first makes the compare constant-time whatever the lengths. First, so an
    // environment token that happens to start with gwa_ still works.
    if (token && expected && safeEqual(sha256(token), sha256(expected)))
      return { kind: 'token', token: BOOTSTRAP_TOKEN };
    if (token && isAdminTokenLike(token)) {
      const check = isWellFormedAdminToken(token)
        ? await this.tokens.authenticate(token)
        : ({ ok: false, reason: 'malformed admin token', token: null } as const);
      if (check.ok) return { kind: 'token', token: check.identity };
      const actor = check.token
        ? { kind: 'token' as const, id: check.token.id, tokenName: check.token.name }
        : { kind: 'anonymous' as const };
      await this.audit.refused(
        { actor, origin: originOf(req) },
        { action: 'auth.token', target: route, reason: check.reason },
      );
      throw new ApiError('unauthenticated', `${check.reason[0]!.toUpperCase()}${check.reason.slice(1)}.`);
    }
    await this.audit.refused(auditByOf(req, undefined), {
      action: 'auth.token',
      target: route,
      reason: token ? 'invalid admin token' : 'malformed authorization header',
    });
    throw new ApiError('unauthenticated', 'Invalid admin token.');
  }

  private checkCsrf(req: ConsoleRequest, expected: string): void {
    const sent = req.headers[CSRF_HEADER];
    if (typeof sent !== 'string' || !safeEqual(sent, expected))
      throw new ApiError('csrf_failed', `Missing or wrong ${CSRF_HEADER} header.`);
  }
}
