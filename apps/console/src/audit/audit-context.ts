import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import { type AuditActor, type AuditOrigin } from '#libs/audit';
import { type ConsoleRequest, type Principal } from '../session/principal.js';

/** Who made a change and from where, as the audit trail records it. */
export interface AuditBy {
  readonly actor: AuditActor;
  readonly origin: AuditOrigin;
}

/** The environment's bootstrap token (CONSOLE_ADMIN_TOKEN), as the trail names it. */
export const ENV_TOKEN_NAME = 'admin token';

export function actorOf(principal: Principal | undefined): AuditActor {
  if (principal === undefined) return { kind: 'anonymous' };
  // A named token by id and name; the environment's has no id.
  if (principal.kind === 'token')
    return { kind: 'token', id: principal.token.id, tokenName: principal.token.name };
  return { kind: 'user', id: principal.user.id, email: principal.user.email };
}

/**
 * The client address as fastify derives it (the socket's, or X-Forwarded-For's client when
 * console.trust_proxy is on) and the user agent; libs/audit bounds both.
 */
export function originOf(req: ConsoleRequest): AuditOrigin {
  const ua = req.headers['user-agent'];
  return { ip: req.ip, userAgent: typeof ua === 'string' ? ua : null };
}

export const auditByOf = (req: ConsoleRequest, principal = req.principal): AuditBy => ({
  actor: actorOf(principal),
  origin: originOf(req),
});

/** The caller as the audit trail names it (after SessionGuard: the signed-in user or the token). */
export const AuditedBy = createParamDecorator((_: unknown, ctx: ExecutionContext): AuditBy =>
  auditByOf(ctx.switchToHttp().getRequest<ConsoleRequest>()),
);
