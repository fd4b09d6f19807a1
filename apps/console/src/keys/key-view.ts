import { type ApiKey } from '#libs/db';
import { creditsOf } from '../credits.js';

export interface KeyView {
  readonly id: string;
  readonly name: string;
  readonly displayPrefix: string;
  readonly group: string;
  /** `expired` is derived: the row stays `active` past its expiry, the edge refuses it anyway. */
  readonly status: 'active' | 'revoked' | 'expired';
  readonly createdAt: string;
  readonly lastUsedAt: string | null;
  readonly expiresAt: string | null;
  readonly spendLimitCredits: number | null;
  readonly spentCredits: number;
  /** Requests / tokens per minute allowed to this key across all edges; null = no key limit. */
  readonly rpmLimit: number | null;
  readonly tpmLimit: number | null;
  /** The team whose credits the key spends (docs/teams.md), or null: its owner's own. */
  readonly teamId: string | null;
}

export function keyView(row: ApiKey, now: Date = new Date()): KeyView {
  const expired = row.expires_at !== null && row.expires_at.getTime() <= now.getTime();
  return {
    id: row.id,
    name: row.name,
    displayPrefix: row.display_prefix,
    group: row.group_name,
    status: row.status === 'revoked' ? 'revoked' : expired ? 'expired' : 'active',
    createdAt: row.created_at.toISOString(),
    lastUsedAt: row.last_used_at?.toISOString() ?? null,
    expiresAt: row.expires_at?.toISOString() ?? null,
    spendLimitCredits: row.spend_limit_nanos === null ? null : creditsOf(row.spend_limit_nanos),
    spentCredits: creditsOf(row.spent_nanos),
    rpmLimit: row.rpm_limit,
    tpmLimit: row.tpm_limit,
    teamId: row.team_id,
  };
}
