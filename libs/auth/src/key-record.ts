/** The edge's view of an api key: enough to authorize a request, nothing secret. */
export interface KeyRecord {
  readonly id: string;
  readonly userId: string;
  readonly group: string;
  readonly status: 'active' | 'revoked';
  /** ISO time, or null for a key that never expires. */
  readonly expiresAt: string | null;
}

export function isKeyUsable(key: KeyRecord, now: number): boolean {
  return key.status === 'active' && (key.expiresAt === null || Date.parse(key.expiresAt) > now);
}
