import { createParamDecorator, type ExecutionContext, SetMetadata } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { type UserRole } from '#libs/db';
import { ApiError } from '../http/api-error.js';

export interface SessionUser {
  readonly id: string;
  readonly email: string;
  readonly role: UserRole;
  readonly groups: string[] | null;
}

/** Who is calling: a signed-in user (cookie session) or automation holding the admin token. */
export type Principal =
  | {
      readonly kind: 'session';
      readonly user: SessionUser;
      readonly sessionId: string;
      readonly csrfToken: string;
    }
  | { readonly kind: 'token' };

export type ConsoleRequest = FastifyRequest & { principal?: Principal };

export const isAdmin = (p: Principal): boolean => p.kind === 'token' || p.user.role === 'admin';

/** Route access levels, read by SessionGuard. The default (no metadata) is any signed-in caller. */
export const ACCESS = 'console:access';
export type Access = 'public' | 'user' | 'admin';
/** No session needed (sign-in, setup, health). */
export const Public = (): MethodDecorator & ClassDecorator => SetMetadata(ACCESS, 'public');
/** Admins only: users get 403. */
export const AdminOnly = (): MethodDecorator & ClassDecorator => SetMetadata(ACCESS, 'admin');

/** The caller, as SessionGuard attached it. */
export const CurrentPrincipal = createParamDecorator((_: unknown, ctx: ExecutionContext): Principal => {
  const principal = ctx.switchToHttp().getRequest<ConsoleRequest>().principal;
  if (!principal) throw new ApiError('unauthenticated', 'Sign in first.');
  return principal;
});

/**
 * The calling user for user-scoped resources (own keys, usage, logs). The admin token has no user
 * of its own, so it is refused there.
 */
export const CurrentUser = createParamDecorator((_: unknown, ctx: ExecutionContext): SessionUser => {
  const principal = ctx.switchToHttp().getRequest<ConsoleRequest>().principal;
  if (!principal) throw new ApiError('unauthenticated', 'Sign in first.');
  if (principal.kind !== 'session')
    throw new ApiError(
      'forbidden',
      'The admin token has no keys, usage or logs of its own; use /api/admin/*.',
    );
  return principal.user;
});
