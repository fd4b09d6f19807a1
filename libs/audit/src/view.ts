import { type AuditEventRow } from '#libs/db';

/** An event as the API shows and exports it (docs/console-api.md). */
export interface AuditEventView {
  readonly id: string;
  readonly at: string;
  readonly actor: {
    readonly kind: AuditEventRow['actor_kind'];
    readonly id: string | null;
    readonly email: string | null;
    readonly tokenName: string | null;
  };
  readonly ip: string | null;
  readonly userAgent: string | null;
  readonly action: string;
  readonly target: { readonly type: string | null; readonly id: string | null };
  readonly before: unknown;
  readonly after: unknown;
  readonly outcome: AuditEventRow['outcome'];
  readonly reason: string | null;
  readonly prevHash: string;
  readonly hash: string;
}

export const auditEventView = (r: AuditEventRow): AuditEventView => ({
  id: r.id,
  at: r.at.toISOString(),
  actor: { kind: r.actor_kind, id: r.actor_id, email: r.actor_email, tokenName: r.actor_token_name },
  ip: r.ip,
  userAgent: r.user_agent,
  action: r.action,
  target: { type: r.target_type, id: r.target_id },
  before: r.before ?? null,
  after: r.after ?? null,
  outcome: r.outcome,
  reason: r.reason,
  prevHash: r.prev_hash,
  hash: r.hash,
});

/** Bodies up to this size (as JSON) ride in the log record; larger ones only by size. */
export const MAX_LOG_BODY_CHARS = 4_096;

function bodyAttributes(name: string, body: unknown): Record<string, string | number> {
  if (body === null || body === undefined) return {};
  const json = JSON.stringify(body);
  return json.length <= MAX_LOG_BODY_CHARS
    ? { [`audit.${name}`]: json }
    : { [`audit.${name}.size`]: json.length };
}

/**
 * The event as one OpenTelemetry-style log record (flat attributes, semantic-convention names
 * where one exists), for the app's JSON log lines and the collector that ships them. Its hash makes
 * the log a copy of the chain kept outside Postgres.
 */
export function auditLogRecord(r: AuditEventRow): Record<string, unknown> {
  return {
    msg: 'audit event',
    'event.name': 'gateway.audit',
    'audit.id': r.id,
    'audit.at': r.at.toISOString(),
    'audit.action': r.action,
    'audit.outcome': r.outcome,
    ...(r.reason === null ? {} : { 'audit.reason': r.reason }),
    'audit.actor.kind': r.actor_kind,
    ...(r.actor_id === null ? {} : { 'enduser.id': r.actor_id }),
    ...(r.actor_email === null ? {} : { 'user.email': r.actor_email }),
    ...(r.actor_token_name === null ? {} : { 'audit.actor.token_name': r.actor_token_name }),
    ...(r.ip === null ? {} : { 'client.address': r.ip }),
    ...(r.user_agent === null ? {} : { 'user_agent.original': r.user_agent }),
    ...(r.target_type === null ? {} : { 'audit.target.type': r.target_type }),
    ...(r.target_id === null ? {} : { 'audit.target.id': r.target_id }),
    ...bodyAttributes('before', r.before),
    ...bodyAttributes('after', r.after),
    'audit.prev_hash': r.prev_hash,
    'audit.hash': r.hash,
  };
}
