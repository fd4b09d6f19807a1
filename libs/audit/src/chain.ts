import { createHash } from 'node:crypto';
import { type AuditFields } from './event.js';

/** The prev_hash of the first row ever written. */
export const GENESIS_HASH = '0'.repeat(64);

/**
 * JSON with object keys sorted at every depth: the same value always gives the same bytes, and
 * jsonb (which reorders keys) reads back a value that serializes the same.
 */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

/**
 * `at` as the hash covers it: the instant to the microsecond, as Postgres stores it. `atMicros` is
 * what the stored value holds past `at`'s millisecond (0-999), which a JavaScript Date (and so the
 * pg driver) drops. The gateway stamps whole milliseconds, written as before (`toISOString()`), so
 * every row it wrote hashes as it always did; a row moved within its millisecond no longer does.
 */
export function auditInstant(at: Date, atMicros = 0): string {
  const iso = at.toISOString();
  return atMicros === 0 ? iso : `${iso.slice(0, -1)}${String(atMicros).padStart(3, '0')}Z`;
}

/**
 * The one place a row's hash is computed: SHA-256 over the canonical JSON of its fields and the
 * previous row's hash. Changing a field, or removing a row (the next one's prev_hash no longer
 * names what precedes it), shows on verification. `atMicros`: see `auditInstant`.
 */
export function auditHash(fields: AuditFields, prevHash: string, atMicros = 0): string {
  const doc = canonicalJson({
    v: 1,
    prev_hash: prevHash,
    at: auditInstant(fields.at, atMicros),
    actor_kind: fields.actor_kind,
    actor_id: fields.actor_id,
    actor_email: fields.actor_email,
    actor_token_name: fields.actor_token_name,
    ip: fields.ip,
    user_agent: fields.user_agent,
    action: fields.action,
    target_type: fields.target_type,
    target_id: fields.target_id,
    before: fields.before,
    after: fields.after,
    outcome: fields.outcome,
    reason: fields.reason,
  });
  return createHash('sha256').update(doc).digest('hex');
}
