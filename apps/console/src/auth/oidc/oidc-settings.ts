import { type OidcConfig } from '#libs/config';
import { type UserRole } from '#libs/db';

/** The console's OIDC section resolved once at boot: the secret read, the callback URL fixed. */
export interface OidcSettings {
  readonly issuer: URL;
  readonly clientId: string;
  /** Null for a public client: the code is then bound by PKCE alone. */
  readonly clientSecret: string | null;
  readonly displayName: string;
  readonly redirectUrl: string;
  readonly scopes: readonly string[];
  readonly claims: ClaimMapping;
  readonly clockToleranceSeconds: number;
  readonly stateTtlMs: number;
}

/** How an ID token's claims become the user's email, role, groups and teams (oidc-claims.ts). */
export interface ClaimMapping {
  readonly email: string;
  readonly allowedEmailDomains: readonly string[] | null;
  /** Null: the role is not managed by the provider (a new user gets defaultRole, then admins edit it). */
  readonly role: {
    readonly claim: string;
    readonly values: Readonly<Record<string, UserRole>>;
  } | null;
  readonly defaultRole: UserRole;
  /** Null: groups are not managed by the provider (admins set them in the console). */
  readonly groups: {
    readonly claim: string;
    readonly map: Readonly<Record<string, readonly string[]>> | null;
  } | null;
  /** Null: team memberships are not managed by the provider (admins manage them in the console). */
  readonly teams: {
    readonly claim: string;
    /** Provider value -> the teams it makes the user a member (or team admin) of; null: by name. */
    readonly map: Readonly<Record<string, readonly TeamMembershipClaim[]>> | null;
  } | null;
}

/** A membership a provider value gives: of the team named `team`, as its team admin or not. */
export interface TeamMembershipClaim {
  readonly team: string;
  readonly admin: boolean;
}

/** teams_map's two spellings of one target: a bare name is a plain membership. */
function teamsMapOf(map: OidcConfig['teams_map']): Record<string, TeamMembershipClaim[]> | null {
  if (map === undefined) return null;
  return Object.fromEntries(
    Object.entries(map).map(([value, targets]) => [
      value,
      targets.map((t) =>
        typeof t === 'string' ? { team: t, admin: false } : { team: t.team, admin: t.admin },
      ),
    ]),
  );
}

export const OIDC_CALLBACK_PATH = '/api/auth/oidc/callback';

export function resolveOidcSettings(
  c: OidcConfig,
  secrets: Readonly<Record<string, string | undefined>>,
  publicUrl: string,
): OidcSettings {
  let clientSecret: string | null = null;
  if (c.client_secret_env !== undefined) {
    clientSecret = secrets[c.client_secret_env] ?? '';
    // Named but unset is a deployment mistake: fail at boot, not at the first sign-in.
    if (clientSecret === '')
      throw new Error(`console.oidc.client_secret_env: ${c.client_secret_env} is not set in the environment`);
  }
  return Object.freeze({
    issuer: new URL(c.issuer),
    clientId: c.client_id,
    clientSecret,
    displayName: c.display_name,
    redirectUrl: c.redirect_url ?? `${publicUrl}${OIDC_CALLBACK_PATH}`,
    scopes: c.scopes,
    claims: {
      email: c.email_claim,
      allowedEmailDomains: c.allowed_email_domains ?? null,
      role: c.role_claim === undefined ? null : { claim: c.role_claim, values: c.role_values },
      defaultRole: c.default_role,
      groups: c.groups_claim === undefined ? null : { claim: c.groups_claim, map: c.groups_map ?? null },
      teams: c.teams_claim === undefined ? null : { claim: c.teams_claim, map: teamsMapOf(c.teams_map) },
    },
    clockToleranceSeconds: c.clock_tolerance_ms / 1000,
    stateTtlMs: c.state_ttl_ms,
  });
}
