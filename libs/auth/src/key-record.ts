import { type Budget } from '#libs/quota';

/** The edge's view of an api key: enough to authorize a request, nothing secret. */
export interface KeyRecord {
  readonly id: string;
  readonly userId: string;
  readonly group: string;
  readonly status: 'active' | 'revoked';
  /** ISO time, or null for a key that never expires. */
  readonly expiresAt: string | null;
  /**
   * Quota limits of the key (docs/quota.md): lifetime spend cap in nanocredits (int8 as a decimal
   * string) and per-minute rate limits; null = none. Optional so records cached before they
   * existed still parse (read as none).
   */
  readonly spendLimitNanos?: string | null;
  readonly rpmLimit?: number | null;
  readonly tpmLimit?: number | null;
  /** The key's budgets and its account's (docs/quota.md); absent in records cached before budgets. */
  readonly budgets?: readonly Budget[];
  /**
   * The team whose credits and budgets the key spends (docs/teams.md), fixed when the key was
   * created; null or absent (records cached before teams) = its owner's own account. The quota
   * account of a request is `keyAccountSlot(key)`.
   */
  readonly teamId?: string | null;
}

export function isKeyUsable(key: KeyRecord, now: number): boolean {
  return key.status === 'active' && (key.expiresAt === null || Date.parse(key.expiresAt) > now);
}
