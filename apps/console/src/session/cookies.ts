import type { FastifyReply, FastifyRequest } from 'fastify';
import { type ConsoleSettings } from '../console-settings.js';

export const SESSION_COOKIE = 'gw_session';

/** HttpOnly (no script reads it), SameSite=Lax (no cross-site POSTs carry it), Secure over https. */
export function setSessionCookie(reply: FastifyReply, id: string, settings: ConsoleSettings): void {
  void reply.setCookie(SESSION_COOKIE, id, {
    path: '/',
    httpOnly: true,
    sameSite: 'lax',
    secure: settings.cookieSecure,
    maxAge: Math.floor(settings.sessionTtlMs / 1000),
  });
}

export function clearSessionCookie(reply: FastifyReply, settings: ConsoleSettings): void {
  void reply.clearCookie(SESSION_COOKIE, {
    path: '/',
    httpOnly: true,
    sameSite: 'lax',
    secure: settings.cookieSecure,
  });
}

export function sessionIdOf(req: FastifyRequest): string | undefined {
  return req.cookies[SESSION_COOKIE];
}
