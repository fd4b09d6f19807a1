import { OidcPendingStore } from './oidc-pending.store.js';
import { OidcRelyingParty } from './oidc-relying-party.js';
import { OidcSignIn } from './oidc-sign-in.service.js';
import { OidcTeams } from './oidc-teams.service.js';

/** Single sign-on's services; inert until a sign-in starts when console.oidc is absent. */
export const OIDC_PROVIDERS = [OidcRelyingParty, OidcPendingStore, OidcSignIn, OidcTeams];
