import { applyDecorators, createParamDecorator, type ExecutionContext, SetMetadata } from '@nestjs/common';
import { ApiExtension } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { USER_ROLES, type UserRole } from '#libs/db';
import { ApiError } from '../http/api-error.js';

export { USER_ROLES as ROLES, type UserRole as Role };

export interface SessionUser {
  readonly id: string;
  readonly email: string;
  readonly role: UserRole;
  readonly groups: string[] | null;
}

/** An admin token as the guard authenticated it: a named console token, or the environment's. */
export interface TokenIdentity {
  /** Null for the environment's bootstrap token (CONSOLE_ADMIN_TOKEN), which has no row. */
  readonly id: string | null;
  readonly name: string;
  readonly role: UserRole;
}

/** Who is calling: a signed-in user (cookie session) or automation holding an admin token. */
export type Principal =
  | {
      readonly kind: 'session';
      readonly user: SessionUser;
      readonly sessionId: string;
      readonly csrfToken: string;
    }
  | { readonly kind: 'token'; readonly token: TokenIdentity };

export type ConsoleRequest = FastifyRequest & {
  principal?: Principal;
  /** Who was authenticated before the body was read (routes with a large body limit). */
  earlyPrincipal?: Principal;
};

export const roleOf = (p: Principal): UserRole => (p.kind === 'token' ? p.token.role : p.user.role);
export const isAdmin = (p: Principal): boolean => roleOf(p) === 'admin';

/**
 * A route's access rule, read by SessionGuard and written into the OpenAPI document (x-roles,
 * x-principals), where the role-matrix e2e walks every operation with every role. A route
 * without a rule is refused at runtime (default deny) and fails that test.
 */
export type RouteRule =
  | { readonly public: true }
  | {
      readonly public: false;
      readonly roles: readonly UserRole[];
      /** False: the route is about the caller's own keys, usage or logs; tokens have none (403). */
      readonly tokens: boolean;
    };
export const ROUTE_RULE = 'console:route-rule';

function rule(r: RouteRule): MethodDecorator & ClassDecorator {
  const roles = r.public ? ['public'] : r.roles;
  const principals = r.public ? [] : r.tokens ? ['session', 'token'] : ['session'];
  return applyDecorators(
    SetMetadata(ROUTE_RULE, r),
    ApiExtension('x-roles', roles),
    ApiExtension('x-principals', principals),
  );
}

/** Admin is implied: it may do everything, so every rule holds it (first, for the docs). */
const withAdmin = (roles: readonly UserRole[]): UserRole[] =>
  USER_ROLES.filter((r) => r === 'admin' || roles.includes(r));

/** No credentials needed (sign-in, setup, OIDC callback). */
export const Public = (): MethodDecorator & ClassDecorator => rule({ public: true });

/** Callers (session users or admin tokens) holding one of these roles; admin is always allowed. */
export const Allow = (...roles: UserRole[]): MethodDecorator & ClassDecorator => rule(allowRule(...roles));

/** The rule `@Allow(...roles)` declares, for a check made before Nest routes the request. */
export const allowRule = (...roles: UserRole[]): RouteRule => ({
  public: false,
  roles: withAdmin(roles),
  tokens: true,
});

/**
 * Signed-in users holding one of these roles, about their own things (keys, usage, logs,
 * budgets): admin tokens are refused with 403 since they own nothing. Admin is always allowed.
 */
export const AllowUsers = (...roles: UserRole[]): MethodDecorator & ClassDecorator =>
  rule({ public: false, roles: withAdmin(roles), tokens: false });

/** Every role: reading what any signed-in caller may read (e.g. the session, the groups list). */
export const EVERY_ROLE: readonly UserRole[] = USER_ROLES;
/** Roles that read fleet-wide state: admin, operator and auditor (auditors change nothing). */
export const READERS: readonly UserRole[] = ['admin', 'operator', 'auditor'];

/** The caller, as SessionGuard attached it. */
export const CurrentPrincipal = createParamDecorator((_: unknown, ctx: ExecutionContext): Principal => {
  const principal = ctx.switchToHttp().getRequest<ConsoleRequest>().principal;
  if (!principal) throw new ApiError('unauthenticated', 'Sign in first.');
  return principal;
});

/**
 * The calling user for user-scoped resources (own keys, usage, logs). An admin token has no user
 * of its own, so it is refused there (routes declared with AllowUsers never reach this with one).
 */
export const CurrentUser = createParamDecorator((_: unknown, ctx: ExecutionContext): SessionUser => {
  const principal = ctx.switchToHttp().getRequest<ConsoleRequest>().principal;
  if (!principal) throw new ApiError('unauthenticated', 'Sign in first.');
  if (principal.kind !== 'session')
    throw new ApiError(
      'forbidden',
      'An admin token has no keys, usage or logs of its own; use /api/admin/*.',
    );
  return principal.user;
});
