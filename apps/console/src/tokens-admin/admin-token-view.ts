import { type AdminToken } from '#libs/db';

export type AdminTokenState = 'active' | 'expired' | 'revoked';

/** A token as the console lists it: never its hash, never its secret. */
export interface AdminTokenView {
  readonly id: string;
  readonly name: string;
  readonly role: AdminToken['role'];
  readonly displayPrefix: string;
  readonly createdBy: string;
  readonly createdAt: string;
  readonly expiresAt: string;
  readonly revokedAt: string | null;
  /** Approximate: written at most once a minute per token. */
  readonly lastUsedAt: string | null;
  readonly state: AdminTokenState;
}

/** Revoked wins over expired: it says someone acted. */
export function tokenState(row: Pick<AdminToken, 'revoked_at' | 'expires_at'>, now: Date): AdminTokenState {
  if (row.revoked_at !== null) return 'revoked';
  return row.expires_at.getTime() <= now.getTime() ? 'expired' : 'active';
}

export function adminTokenView(row: AdminToken, now: Date): AdminTokenView {
  return {
    id: row.id,
    name: row.name,
    role: row.role,
    displayPrefix: row.display_prefix,
    createdBy: row.created_by,
    createdAt: row.created_at.toISOString(),
    expiresAt: row.expires_at.toISOString(),
    revokedAt: row.revoked_at?.toISOString() ?? null,
    lastUsedAt: row.last_used_at?.toISOString() ?? null,
    state: tokenState(row, now),
  };
}
