/**
 * Who pays for a request (docs/teams.md): the key's team when it has one, else the key's owner.
 * An account's Redis state (balance, key spends, pending charges, budget counters, rate windows)
 * shares one hash tag, its slot, so one script call admits or settles atomically on one Cluster
 * slot. A user's slot is its id (unchanged from before teams), a team's `team:<id>`.
 */
export type QuotaAccount =
  { readonly kind: 'user'; readonly id: string } | { readonly kind: 'team'; readonly id: string };

const TEAM = 'team:';

export function accountSlot(account: QuotaAccount): string {
  return account.kind === 'team' ? TEAM + account.id : account.id;
}

export function accountOfSlot(slot: string): QuotaAccount {
  return slot.startsWith(TEAM) ? { kind: 'team', id: slot.slice(TEAM.length) } : { kind: 'user', id: slot };
}

/**
 * The slot a key's requests are admitted and settled in, and so the slot its charges are pending
 * in (a key's team is fixed at its creation).
 */
export function keyAccountSlot(key: { readonly userId: string; readonly teamId?: string | null }): string {
  return key.teamId ? TEAM + key.teamId : key.userId;
}
