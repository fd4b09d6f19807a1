import { USER_ROLES, type UserRole } from '#libs/db';
import { type ClaimMapping, type TeamMembershipClaim } from './oidc-settings.js';

/** What the provider's claims say about a user, under the configured mapping. */
export interface MappedIdentity {
  readonly email: string;
  /** Undefined: the provider does not manage roles (keep the stored one; defaultRole for a new user). */
  readonly role: UserRole | undefined;
  /** Undefined: the provider does not manage groups (keep the stored ones). */
  readonly groups: string[] | undefined;
  /**
   * Undefined: the provider does not manage team memberships (keep the stored ones). Else the
   * teams by name, sorted, each once; whether they exist is for the sign-in to find out.
   */
  readonly teams: TeamMembershipClaim[] | undefined;
}

/** A claim set the configured mapping cannot sign in; `reason` is safe to show the user. */
export class ClaimRefusal extends Error {}

/** Roles by precedence (USER_ROLES is strongest first): a user whose claim maps to several gets the strongest. */
const ROLE_ORDER: readonly UserRole[] = USER_ROLES;
const EMAIL = /^[^\s@]+@([^\s@]+\.[^\s@]+)$/;

// eslint-disable-next-line no-control-regex -- the point is to find control characters
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

/**
 * A claim's value as the console may keep it: Postgres refuses a NUL in text (the user's lookup
 * would answer 500), and the other control characters would forge lines in logs and pages.
 */
function storable(name: string, value: string): string {
  if (CONTROL.test(value))
    throw new ClaimRefusal(`The identity provider's ${name} claim holds a control character.`);
  return value;
}

/** A claim as a list of strings: providers send one value as a string and several as an array. */
function values(claims: Readonly<Record<string, unknown>>, name: string): string[] {
  const v = claims[name];
  if (typeof v === 'string') return [storable(name, v)];
  if (Array.isArray(v))
    return v.filter((x): x is string => typeof x === 'string').map((x) => storable(name, x));
  return [];
}

/** What a JSON value is, for a refusal that names it without echoing it. */
const kindOf = (v: unknown): string =>
  v === null ? 'null' : Array.isArray(v) ? 'an array' : typeof v === 'object' ? 'an object' : `a ${typeof v}`;

/**
 * Only the boolean true vouches for the address. The console stores no subject: the address is the
 * user, found by it at every sign-in, so an address the provider does not vouch for would sign in
 * as whoever holds it (an admin too), or create the account its real owner would later land in.
 * Providers that send no email_verified (Entra ID) are configured with another email_claim.
 */
function assertVerified(verified: unknown): void {
  if (verified === true) return;
  if (verified === false)
    throw new ClaimRefusal('The identity provider has not verified this email address.');
  const why =
    verified === undefined
      ? 'The identity provider sent no email_verified claim'
      : `The identity provider's email_verified claim is ${kindOf(verified)}, not true`;
  throw new ClaimRefusal(`${why}: only email_verified true vouches for an address.`);
}

function emailOf(claims: Readonly<Record<string, unknown>>, m: ClaimMapping): string {
  const raw = claims[m.email];
  if (typeof raw !== 'string') throw new ClaimRefusal(`The identity provider sent no ${m.email} claim.`);
  const email = storable(m.email, raw.trim().toLowerCase());
  const domain = EMAIL.exec(email)?.[1];
  if (!domain) throw new ClaimRefusal(`The ${m.email} claim is not an email address.`);
  // email_verified speaks of the email claim alone (OIDC Core 5.1); another configured claim
  // (Entra ID's preferred_username) is vouched for by the operator's choice of it.
  if (m.email === 'email') assertVerified(claims.email_verified);
  if (m.allowedEmailDomains && !m.allowedEmailDomains.includes(domain))
    throw new ClaimRefusal(`Accounts of ${domain} may not sign in to this console.`);
  return email;
}

function roleOf(claims: Readonly<Record<string, unknown>>, m: ClaimMapping): UserRole | undefined {
  if (!m.role) return undefined;
  const held = new Set(values(claims, m.role.claim).flatMap((v) => m.role!.values[v] ?? []));
  return ROLE_ORDER.find((r) => held.has(r)) ?? m.defaultRole;
}

/**
 * The gateway groups of the provider's groups: through the map when one is configured, else the
 * provider groups named like a gateway group. A provider lists many groups unrelated to the
 * gateway (every mailing list, every team): those are not refusals, they are not ours.
 */
function groupsOf(
  claims: Readonly<Record<string, unknown>>,
  m: ClaimMapping,
  known: Pick<ReadonlySet<string>, 'has'>,
): string[] | undefined {
  if (!m.groups) return undefined;
  const map = m.groups.map;
  const mapped = values(claims, m.groups.claim).flatMap((g) => (map ? (map[g] ?? []) : [g]));
  return [...new Set(mapped.filter((g) => known.has(g)))].sort();
}

/**
 * The team memberships of the provider's values: through the map when one is configured, else a
 * value is membership of the team with its name. A team several values name is administered when
 * any of them says so: the strongest mapping wins, as with roles.
 */
function teamsOf(
  claims: Readonly<Record<string, unknown>>,
  m: ClaimMapping,
): TeamMembershipClaim[] | undefined {
  if (!m.teams) return undefined;
  const map = m.teams.map;
  const admin = new Map<string, boolean>();
  for (const v of values(claims, m.teams.claim))
    for (const t of map ? (map[v] ?? []) : [{ team: v, admin: false }])
      admin.set(t.team, (admin.get(t.team) ?? false) || t.admin);
  return [...admin]
    .map(([team, isAdmin]) => ({ team, admin: isAdmin }))
    .sort((a, b) => (a.team < b.team ? -1 : a.team > b.team ? 1 : 0));
}

/** The identity of a validated ID token's claims; throws ClaimRefusal when it may not sign in. */
export function mapClaims(
  claims: Readonly<Record<string, unknown>>,
  mapping: ClaimMapping,
  knownGroups: Pick<ReadonlySet<string>, 'has'>,
): MappedIdentity {
  return {
    email: emailOf(claims, mapping),
    role: roleOf(claims, mapping),
    groups: groupsOf(claims, mapping, knownGroups),
    teams: teamsOf(claims, mapping),
  };
}
