import { type TeamMembershipClaim } from './oidc-settings.js';

/** A membership as it is stored: the team's id and whether the user is its team admin. */
export interface Membership {
  readonly teamId: string;
  readonly admin: boolean;
}

/** What a sign-in changes so the user's memberships are exactly the claimed ones, by team id. */
export interface MembershipPlan {
  /** Memberships to add, or whose team admin flag changes. */
  readonly put: readonly Membership[];
  /** Teams the user leaves. */
  readonly remove: readonly string[];
}

const byId = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/**
 * The changes from the stored memberships to the claimed ones. A claimed team without a row in
 * `teamIds` (by name) does not exist and is ignored, as unknown groups are: a provider lists
 * many groups that are not the gateway's. Both lists are sorted by team id, the order the
 * teams are locked in. Unchanged memberships are in neither list: nothing to do or record.
 */
export function planMemberships(
  current: readonly Membership[],
  claimed: readonly TeamMembershipClaim[],
  teamIds: ReadonlyMap<string, string>,
): MembershipPlan {
  const wanted = new Map<string, boolean>();
  for (const c of claimed) {
    const id = teamIds.get(c.team);
    if (id !== undefined) wanted.set(id, (wanted.get(id) ?? false) || c.admin);
  }
  const held = new Map(current.map((m) => [m.teamId, m.admin]));
  const put = [...wanted]
    .filter(([id, admin]) => held.get(id) !== admin)
    .map(([teamId, admin]) => ({ teamId, admin }))
    .sort((a, b) => byId(a.teamId, b.teamId));
  const remove = [...held.keys()].filter((id) => !wanted.has(id)).sort(byId);
  return { put, remove };
}
