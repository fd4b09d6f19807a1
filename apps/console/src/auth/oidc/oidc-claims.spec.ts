import { describe, expect, it } from '@jest/globals';
import { ClaimRefusal, mapClaims } from './oidc-claims.js';
import { type ClaimMapping } from './oidc-settings.js';

const known = new Set(['default', 'research', 'premium']);
const plain: ClaimMapping = {
  email: 'email',
  allowedEmailDomains: null,
  role: null,
  defaultRole: 'member',
  groups: null,
  teams: null,
};
const mapped: ClaimMapping = {
  ...plain,
  role: { claim: 'roles', values: { 'gateway-admins': 'admin', engineers: 'member' } },
  groups: {
    claim: 'groups',
    map: { 'ml-team': ['research', 'premium'], everyone: ['default'], gone: ['nope'] },
  },
};

describe('mapClaims', () => {
  it('without role or groups claims leaves both to the console (undefined), email normalized', () => {
    expect(mapClaims({ email: ' Ada@Example.COM ', email_verified: true }, plain, known)).toEqual({
      email: 'ada@example.com',
      role: undefined,
      groups: undefined,
      teams: undefined,
    });
  });

  it('the strongest mapped role wins, whatever the order; unmapped values give the default role', () => {
    const claims = (roles: unknown) => ({ email: 'a@example.com', roles });
    expect(mapClaims(claims(['engineers', 'gateway-admins']), mapped, known).role).toBe('admin');
    expect(mapClaims(claims('engineers'), mapped, known).role).toBe('member');
    expect(mapClaims(claims(['marketing']), mapped, known).role).toBe('member');
    expect(mapClaims(claims(undefined), { ...mapped, defaultRole: 'admin' }, known).role).toBe('admin');
  });

  it('maps to operator and auditor too: admin > operator > auditor > member', () => {
    const staff: ClaimMapping = {
      ...plain,
      role: {
        claim: 'roles',
        values: { sre: 'operator', compliance: 'auditor', engineers: 'member', root: 'admin' },
      },
    };
    const role = (roles: string[]) => mapClaims({ email: 'a@example.com', roles }, staff, known).role;
    expect(role(['sre'])).toBe('operator');
    expect(role(['compliance'])).toBe('auditor');
    expect(role(['compliance', 'engineers'])).toBe('auditor');
    expect(role(['engineers', 'compliance', 'sre'])).toBe('operator');
    expect(role(['sre', 'root'])).toBe('admin');
  });

  it('groups go through the map, deduplicated and sorted; targets the gateway no longer has are left out', () => {
    const claims = { email: 'a@example.com', groups: ['everyone', 'ml-team', 'ml-team', 'gone', 'payroll'] };
    expect(mapClaims(claims, mapped, known).groups).toEqual(['default', 'premium', 'research']);
  });

  it('without a map a provider group is taken when a gateway group has its name; none is an empty list', () => {
    const byName: ClaimMapping = { ...plain, groups: { claim: 'groups', map: null } };
    expect(
      mapClaims({ email: 'a@example.com', groups: ['research', 'payroll'] }, byName, known).groups,
    ).toEqual(['research']);
    expect(mapClaims({ email: 'a@example.com', groups: 'premium' }, byName, known).groups).toEqual([
      'premium',
    ]);
    expect(mapClaims({ email: 'a@example.com' }, byName, known).groups).toEqual([]);
  });

  describe('teams', () => {
    const teamsMapped: ClaimMapping = {
      ...plain,
      teams: {
        claim: 'teams',
        map: {
          'eng-leads': [{ team: 'eng', admin: true }],
          eng: [{ team: 'eng', admin: false }],
          'data-all': [
            { team: 'data', admin: false },
            { team: 'analytics', admin: false },
          ],
        },
      },
    };
    const teamsOf = (teams: unknown, m = teamsMapped) =>
      mapClaims({ email: 'a@example.com', teams }, m, known).teams;

    it('go through the map, each team once, sorted; values the map does not name are not ours', () => {
      expect(teamsOf(['data-all', 'eng', 'payroll'])).toEqual([
        { team: 'analytics', admin: false },
        { team: 'data', admin: false },
        { team: 'eng', admin: false },
      ]);
    });

    it('a team several values name is administered when any of them says so, whatever the order', () => {
      const eng = [{ team: 'eng', admin: true }];
      expect(teamsOf(['eng', 'eng-leads'])).toEqual(eng);
      expect(teamsOf(['eng-leads', 'eng'])).toEqual(eng);
      expect(teamsOf('eng-leads')).toEqual(eng);
    });

    it('without a map a value is membership of the team with its name; no claim is no teams at all', () => {
      const byName: ClaimMapping = { ...plain, teams: { claim: 'teams', map: null } };
      expect(teamsOf(['eng', 'data', 'eng', 7], byName)).toEqual([
        { team: 'data', admin: false },
        { team: 'eng', admin: false },
      ]);
      expect(teamsOf(undefined, byName)).toEqual([]);
      expect(teamsOf(undefined)).toEqual([]);
    });

    it('without teams_claim the provider does not manage teams (undefined), whatever the token says', () => {
      expect(mapClaims({ email: 'a@example.com', teams: ['eng'] }, plain, known).teams).toBeUndefined();
    });
  });

  it.each([
    [{}, 'sent no email claim'],
    [{ email: 42 }, 'sent no email claim'],
    [{ email: 'not-an-address' }, 'not an email address'],
    [{ email: 'a@example.com', email_verified: false }, 'not verified'],
  ])('refuses %j (%s)', (claims, words) => {
    expect(() => mapClaims(claims, plain, known)).toThrow(ClaimRefusal);
    expect(() => mapClaims(claims, plain, known)).toThrow(words);
  });

  it('allowed domains: only those sign in; the claim may be another one (Entra preferred_username)', () => {
    const corp: ClaimMapping = {
      ...plain,
      email: 'preferred_username',
      allowedEmailDomains: ['corp.example'],
    };
    expect(mapClaims({ preferred_username: 'Bo@Corp.Example' }, corp, known).email).toBe('bo@corp.example');
    expect(() => mapClaims({ preferred_username: 'bo@evil.example' }, corp, known)).toThrow(
      'Accounts of evil.example may not sign in',
    );
    expect(() => mapClaims({ preferred_username: 'bo@sub.corp.example' }, corp, known)).toThrow(ClaimRefusal);
  });
});
