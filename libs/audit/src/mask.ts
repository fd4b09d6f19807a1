import { createHash } from 'node:crypto';

/**
 * Field names whose values are never stored: passwords, API keys, tokens, secret values. A stored
 * secret's id (`api_key_secret`, a reference) and its hint are not secrets and are kept.
 */
const SECRET_FIELD =
  /^(password|new_?password|api_?key|secret|token|access_?token|refresh_?token|client_?secret|private_?key|authorization|cookie)$/i;

export const MASK = '[masked]';

/** A before/after body larger than this (as JSON) is stored as its size and SHA-256 only. */
export const MAX_BODY_BYTES = 256 * 1024;

/** A deep copy with every secret field's value replaced by `[masked]`. */
export function maskSecrets(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(maskSecrets);
  if (value === null || typeof value !== 'object') return value;
  if (value instanceof Date) return value.toISOString();
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    if (v === undefined) continue;
    out[k] = SECRET_FIELD.test(k) && v !== null ? MASK : maskSecrets(v);
  }
  return out;
}

/**
 * Masked, made JSON-safe (what jsonb keeps reading back the same: no undefined, no NUL) and
 * bounded; undefined and null are null (no body).
 */
export function boundedBody(value: unknown): unknown {
  if (value === undefined || value === null) return null;
  const json = JSON.stringify(maskSecrets(value)).replace(/\\u0000/g, '\\ufffd');
  const bytes = Buffer.byteLength(json);
  if (bytes > MAX_BODY_BYTES)
    return { truncated: true, bytes, sha256: createHash('sha256').update(json).digest('hex') };
  return JSON.parse(json) as unknown;
}
