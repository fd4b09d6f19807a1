import { describe, expect, it } from '@jest/globals';
import { type GatewayConfigInput } from '#libs/config';
import { parseConfig } from '#libs/gateway-config';
import { testConfig } from '../../../../../test/support/gateway.js';
import { resolveOidcSettings } from './oidc-settings.js';

type OidcInput = NonNullable<NonNullable<GatewayConfigInput['console']>['oidc']>;
const ISSUER = 'https://idp.example.com/realms/corp';

const configWith = (oidc: Partial<OidcInput>) =>
  parseConfig({
    ...testConfig('http://127.0.0.1:9'),
    console: { oidc: { issuer: ISSUER, client_id: 'gateway', ...oidc } },
  });

describe('console.oidc', () => {
  it('defaults: the standard scopes, passwords still on, no role or group mapping', () => {
    expect(configWith({}).console.oidc).toEqual({
      issuer: ISSUER,
      client_id: 'gateway',
      display_name: 'single sign-on',
      scopes: ['openid', 'email', 'profile'],
      email_claim: 'email',
      role_values: {},
      default_role: 'member',
      password_sign_in: true,
      clock_tolerance_ms: 30_000,
      state_ttl_ms: 600_000,
    });
  });

  it.each([
    [{ scopes: ['email'] }, 'scopes', 'must include openid'],
    [{ role_values: { admins: 'superuser' } }, 'role_values', 'must be one of admin, operator'],
    // The role renamed by issue 24: said so, never read as member silently.
    [{ role_values: { staff: 'user' } }, 'role_values', "the role 'user' is now called 'member'"],
    [{ default_role: 'user' }, 'default_role', "the role 'user' is now called 'member'"],
    [{ groups_map: { 'ml-team': ['research'] } }, 'groups_map', 'unknown group research'],
    [{ client_secret_env: 'not a name' }, 'client_secret_env', 'environment variable name'],
    [{ teams_map: { eng: ['eng'] } }, 'teams_map', 'needs teams_claim'],
    [{ teams_claim: 'teams', teams_map: { eng: [{ team: 'eng', admin: 'yes' }] } }, 'teams_map', ''],
    [{ teams_claim: 'teams', teams_map: { eng: [{ team: 'eng', role: 'admin' }] } }, 'teams_map', ''],
    [{ teams_claim: 'teams', teams_map: { eng: [' '] } }, 'teams_map', 'must be a team name'],
    [{ teams_claim: 'teams', teams_map: { eng: ['x'.repeat(101)] } }, 'teams_map', 'must be a team name'],
    [{ teams_claim: '' }, 'teams_claim', ''],
    [{ issuer: 'ftp://idp.example.com' }, 'issuer', ''],
    [{ allowed_email_domains: ['@Example.com'] }, 'allowed_email_domains', 'lowercase domain'],
  ] as const)('refuses %j at %s', (oidc, field, words) => {
    expect(() => configWith(oidc as Partial<OidcInput>)).toThrow(
      new RegExp(`console\\.oidc\\.${field}[\\s\\S]*${words}`),
    );
  });

  it('resolves the secret from the environment and the callback from the public URL', () => {
    const c = configWith({ client_secret_env: 'OIDC_SECRET', role_claim: 'roles', groups_claim: 'groups' })
      .console.oidc!;
    const s = resolveOidcSettings(c, { OIDC_SECRET: 's3cret' }, 'https://gateway.example.com');
    expect(s).toMatchObject({
      clientSecret: 's3cret',
      redirectUrl: 'https://gateway.example.com/api/auth/oidc/callback',
      clockToleranceSeconds: 30,
      claims: { role: { claim: 'roles', values: {} }, groups: { claim: 'groups', map: null } },
    });
    expect(s.issuer.href).toBe(`${ISSUER}`);
    expect(resolveOidcSettings(configWith({}).console.oidc!, {}, 'http://x').clientSecret).toBeNull();
  });

  it('teams: a bare name is a membership, an object may say team admin; without a map, by name', () => {
    const c = configWith({
      teams_claim: 'teams',
      teams_map: { 'eng-leads': [{ team: 'eng', admin: true }, 'platform'], eng: [{ team: ' eng ' }] },
    }).console.oidc!;
    expect(resolveOidcSettings(c, {}, 'http://x').claims.teams).toEqual({
      claim: 'teams',
      map: {
        'eng-leads': [
          { team: 'eng', admin: true },
          { team: 'platform', admin: false },
        ],
        eng: [{ team: 'eng', admin: false }],
      },
    });
    const byName = configWith({ teams_claim: 'groups' }).console.oidc!;
    expect(resolveOidcSettings(byName, {}, 'http://x').claims.teams).toEqual({ claim: 'groups', map: null });
    expect(resolveOidcSettings(configWith({}).console.oidc!, {}, 'http://x').claims.teams).toBeNull();
  });

  it('a secret named but not set stops the console at boot', () => {
    const c = configWith({ client_secret_env: 'OIDC_SECRET' }).console.oidc!;
    expect(() => resolveOidcSettings(c, {}, 'http://x')).toThrow('OIDC_SECRET is not set');
    expect(() => resolveOidcSettings(c, { OIDC_SECRET: '' }, 'http://x')).toThrow('OIDC_SECRET is not set');
  });
});
