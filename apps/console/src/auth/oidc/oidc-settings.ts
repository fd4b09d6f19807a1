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

/** How an ID token's claims become the user's email, role and groups (oidc-claims.ts). */
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
    },
    clockToleranceSeconds: c.clock_tolerance_ms / 1000,
    stateTtlMs: c.state_ttl_ms,
  });
}
