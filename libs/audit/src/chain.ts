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
 * The one place a row's hash is computed: SHA-256 over the canonical JSON of its fields and the
 * previous row's hash. Changing a field, or removing a row (the next one's prev_hash no longer
 * names what precedes it), shows on verification.
 */
export function auditHash(fields: AuditFields, prevHash: string): string {
  const doc = canonicalJson({
    v: 1,
    prev_hash: prevHash,
    at: fields.at.toISOString(),
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
