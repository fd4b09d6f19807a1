import { describe, expect, it } from '@jest/globals';
import { ClaimRefusal, mapClaims } from './oidc-claims.js';
import { type ClaimMapping } from './oidc-settings.js';

const known = new Set(['default', 'research', 'premium']);
/** An address the provider vouches for: the claims every mapping below starts from. */
const VERIFIED = { email: 'a@example.com', email_verified: true };
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
    const claims = (roles: unknown) => ({ ...VERIFIED, roles });
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
    const role = (roles: string[]) => mapClaims({ ...VERIFIED, roles }, staff, known).role;
    expect(role(['sre'])).toBe('operator');
    expect(role(['compliance'])).toBe('auditor');
    expect(role(['compliance', 'engineers'])).toBe('auditor');
    expect(role(['engineers', 'compliance', 'sre'])).toBe('operator');
    expect(role(['sre', 'root'])).toBe('admin');
  });

  it('groups go through the map, deduplicated and sorted; targets the gateway no longer has are left out', () => {
    const claims = { ...VERIFIED, groups: ['everyone', 'ml-team', 'ml-team', 'gone', 'payroll'] };
    expect(mapClaims(claims, mapped, known).groups).toEqual(['default', 'premium', 'research']);
  });

  it('without a map a provider group is taken when a gateway group has its name; none is an empty list', () => {
    const byName: ClaimMapping = { ...plain, groups: { claim: 'groups', map: null } };
    expect(mapClaims({ ...VERIFIED, groups: ['research', 'payroll'] }, byName, known).groups).toEqual([
      'research',
    ]);
    expect(mapClaims({ ...VERIFIED, groups: 'premium' }, byName, known).groups).toEqual(['premium']);
    expect(mapClaims(VERIFIED, byName, known).groups).toEqual([]);
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
    const teamsOf = (teams: unknown, m = teamsMapped) => mapClaims({ ...VERIFIED, teams }, m, known).teams;

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
      expect(mapClaims({ ...VERIFIED, teams: ['eng'] }, plain, known).teams).toBeUndefined();
    });
  });

  it.each([
    [{}, 'sent no email claim'],
    [{ email: 42 }, 'sent no email claim'],
    [{ email: 'not-an-address' }, 'not an email address'],
    [{ ...VERIFIED, email_verified: false }, 'not verified'],
  ])('refuses %j (%s)', (claims, words) => {
    expect(() => mapClaims(claims, plain, known)).toThrow(ClaimRefusal);
    expect(() => mapClaims(claims, plain, known)).toThrow(words);
  });

  // The address is the user's identity (the console stores no subject): an address the provider
  // does not vouch for would sign in as whoever holds it, an admin included.
  it.each([
    ['the string "false"', 'false', 'email_verified claim is a string, not true'],
    ['the string "true"', 'true', 'email_verified claim is a string, not true'],
    ['the number 1', 1, 'email_verified claim is a number, not true'],
    ['null', null, 'email_verified claim is null, not true'],
    ['an object', { value: true }, 'email_verified claim is an object, not true'],
    ['absent', undefined, 'sent no email_verified claim'],
  ])('email_verified %s does not vouch for the address: refused, saying why', (_, verified, words) => {
    const claims = { email: 'admin@example.com', email_verified: verified };
    expect(() => mapClaims(claims, plain, known)).toThrow(ClaimRefusal);
    expect(() => mapClaims(claims, plain, known)).toThrow(words);
  });

  // Postgres refuses a NUL in text (a 500 at the user's lookup); the others would forge a log line.
  describe('a control character in a claim the mapping reads is refused, naming the claim', () => {
    const all: ClaimMapping = {
      ...mapped,
      role: { claim: 'roles', values: { 'gateway-admins': 'admin' } },
      teams: { claim: 'teams', map: null },
    };
    it.each([
      ['email', { email: 'ada\u0000@example.com' }],
      ['email', { email: 'ada@exa\u001bmple.com' }],
      ['email', { email: 'ada@example.com\u0085' }],
      ['teams', { teams: ['eng', 'eng\u0000'] }],
      ['teams', { teams: 'ops\u007f' }],
      ['groups', { groups: ['ml-team', 'research\u0000'] }],
      ['roles', { roles: ['gateway-admins\u0000'] }],
    ])('%s of %j', (claim, bad) => {
      const claims = { ...VERIFIED, ...bad };
      expect(() => mapClaims(claims, all, known)).toThrow(ClaimRefusal);
      expect(() => mapClaims(claims, all, known)).toThrow(
        `The identity provider's ${claim} claim holds a control character.`,
      );
    });

    it('a claim the mapping does not read may hold one (name, a teams claim without teams_claim)', () => {
      const claims = { ...VERIFIED, name: 'Ada\u0000', teams: ['eng\u0000'] };
      expect(mapClaims(claims, plain, known).email).toBe('a@example.com');
    });
  });

  it('email_verified speaks of the email claim only: another email_claim (Entra preferred_username) is not held to it', () => {
    const upn: ClaimMapping = { ...plain, email: 'preferred_username' };
    expect(mapClaims({ preferred_username: 'bo@corp.example' }, upn, known).email).toBe('bo@corp.example');
    expect(
      mapClaims({ preferred_username: 'bo@corp.example', email_verified: 'false' }, upn, known).email,
    ).toBe('bo@corp.example');
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
