import { describe, expect, it } from '@jest/globals';
import { planMemberships } from './oidc-team-plan.js';

// Team ids sort as eng < ops < research, the order the plan lists (and the sign-in locks) them in.
const ids = new Map([
  ['eng', 't1-eng'],
  ['ops', 't2-ops'],
  ['research', 't3-research'],
]);
const member = (team: string, admin = false) => ({ team, admin });

describe('planMemberships', () => {
  it('a first sign-in adds every claimed team that exists; unknown names are ignored', () => {
    expect(planMemberships([], [member('research'), member('eng', true), member('nope')], ids)).toEqual({
      put: [
        { teamId: 't1-eng', admin: true },
        { teamId: 't3-research', admin: false },
      ],
      remove: [],
    });
  });

  it('a later sign-in adds, removes and changes the admin flag; unchanged memberships are left alone', () => {
    const current = [
      { teamId: 't3-research', admin: false },
      { teamId: 't2-ops', admin: false },
      { teamId: 't1-eng', admin: true },
    ];
    expect(planMemberships(current, [member('eng'), member('research')], ids)).toEqual({
      put: [{ teamId: 't1-eng', admin: false }],
      remove: ['t2-ops'],
    });
    expect(planMemberships(current, [member('eng', true), member('ops'), member('research')], ids)).toEqual({
      put: [],
      remove: [],
    });
  });

  it('no claimed team (or only unknown ones) leaves every team; a membership of a team gone is removed too', () => {
    const current = [
      { teamId: 't2-ops', admin: true },
      { teamId: 't0-deleted-meanwhile', admin: false },
    ];
    expect(planMemberships(current, [member('nope')], ids)).toEqual({
      put: [],
      remove: ['t0-deleted-meanwhile', 't2-ops'],
    });
  });

  it('a team claimed twice is administered when either says so', () => {
    expect(planMemberships([], [member('ops'), member('ops', true)], ids).put).toEqual([
      { teamId: 't2-ops', admin: true },
    ]);
  });
});
