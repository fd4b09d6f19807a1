import { type AuditActorKind, type AuditOutcome } from '#libs/db';
import { boundedBody } from './mask.js';

/** Who did it: a signed-in user, a named admin token, someone not signed in, or the gateway itself. */
export interface AuditActor {
  readonly kind: AuditActorKind;
  readonly id?: string | null;
  readonly email?: string | null;
  /** The admin token's name (`admin token` for the environment's bootstrap token). */
  readonly tokenName?: string | null;
}

/** Where from: the client address as the console derives it (trust_proxy) and its user agent. */
export interface AuditOrigin {
  readonly ip?: string | null;
  readonly userAgent?: string | null;
}

/** What a caller records; libs/audit adds when, the masking, the bounds and the chain. */
export interface AuditEvent {
  readonly actor: AuditActor;
  readonly origin?: AuditOrigin;
  /** Dotted, stable names (`user.create`, `auth.sign_in`, `access.refused`): docs/console-api.md. */
  readonly action: string;
  readonly target?: { readonly type: string; readonly id?: string | null };
  /** The state before and after the change; secrets are masked on the way in. */
  readonly before?: unknown;
  readonly after?: unknown;
  readonly outcome?: AuditOutcome;
  /** Why it was refused (or a note on a change), in words. */
  readonly reason?: string | null;
}

/** The fields of a row as stored and hashed, every one bounded and masked. */
export interface AuditFields {
  readonly at: Date;
  readonly actor_kind: AuditActorKind;
  readonly actor_id: string | null;
  readonly actor_email: string | null;
  readonly actor_token_name: string | null;
  readonly ip: string | null;
  readonly user_agent: string | null;
  readonly action: string;
  readonly target_type: string | null;
  readonly target_id: string | null;
  readonly before: unknown;
  readonly after: unknown;
  readonly outcome: AuditOutcome;
  readonly reason: string | null;
}

/** Bounds of the free-text fields: a client chooses its user agent and the email it signs in with. */
export const AUDIT_BOUNDS = {
  ip: 64,
  userAgent: 512,
  email: 320,
  id: 200,
  action: 100,
  reason: 1_000,
} as const;

/** Cut to `max` characters; control characters (a forged line break) become U+FFFD. */
export function boundedText(value: string | null | undefined, max: number): string | null {
  if (value === undefined || value === null || value === '') return null;
  // eslint-disable-next-line no-control-regex -- the point is to find control characters
  const clean = value.replace(/[\u0000-\u001f\u007f]/g, '\ufffd');
  return clean.length > max ? `${clean.slice(0, max - 1)}…` : clean;
}

/** The row's fields: the event bounded and masked, stamped at `at` (milliseconds, as stored). */
export function auditFields(event: AuditEvent, at: Date): AuditFields {
  const b = AUDIT_BOUNDS;
  return {
    at,
    actor_kind: event.actor.kind,
    actor_id: boundedText(event.actor.id, b.id),
    actor_email: boundedText(event.actor.email, b.email),
    actor_token_name: boundedText(event.actor.tokenName, b.id),
    ip: boundedText(event.origin?.ip, b.ip),
    user_agent: boundedText(event.origin?.userAgent, b.userAgent),
    action: boundedText(event.action, b.action) ?? 'unknown',
    target_type: boundedText(event.target?.type, b.id),
    target_id: boundedText(event.target?.id, b.id),
    before: boundedBody(event.before),
    after: boundedBody(event.after),
    outcome: event.outcome ?? 'ok',
    reason: boundedText(event.reason, b.reason),
  };
}
