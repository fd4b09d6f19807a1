import { randomBytes } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { type Kysely } from 'kysely';
import { type Catalog } from '#libs/config';
import { type Database } from '#libs/db';
import { type ConsoleSettings } from '../../console-settings.js';
import { nanosOf } from '../../credits.js';
import { ApiError } from '../../http/api-error.js';
import { toApiError } from '../../http/api-exception.filter.js';
import { CATALOG, DB, SETTINGS } from '../../tokens.js';
import { AuthService, type SignedIn } from '../auth.service.js';
import { type SignInOrigin, SignInEvents } from '../sign-in-events.js';
import { ClaimRefusal, mapClaims } from './oidc-claims.js';
import { callbackError, startError } from './oidc-errors.js';
import { OidcPendingStore, sha256 } from './oidc-pending.store.js';
import { OidcRelyingParty } from './oidc-relying-party.js';
import { type OidcSettings } from './oidc-settings.js';
import { OidcTeams } from './oidc-teams.service.js';
import { upsertOidcUser } from './oidc-users.js';

export interface StartedSignIn {
  /** The provider's authorization URL the browser is sent to. */
  readonly url: string;
  /** Goes into the browser-binding cookie; only its hash is stored with the state. */
  readonly browserBinding: string;
}

export interface FinishedSignIn {
  readonly signedIn: SignedIn;
  readonly next: string;
}

const CALLBACK = { method: 'GET', url: '/api/auth/oidc/callback' };
const UNKNOWN_STATE = 'This sign-in is unknown, expired or was already used; start again.';

/** Single sign-on's two legs: send the browser to the provider, then turn its answer into a session. */
@Injectable()
export class OidcSignIn {
  constructor(
    private readonly rp: OidcRelyingParty,
    private readonly pending: OidcPendingStore,
    private readonly auth: AuthService,
    private readonly events: SignInEvents,
    private readonly teams: OidcTeams,
    @Inject(DB) private readonly db: Kysely<Database>,
    @Inject(CATALOG) private readonly catalog: Catalog,
    @Inject(SETTINGS) private readonly consoleSettings: ConsoleSettings,
  ) {}

  private get settings(): OidcSettings {
    const s = this.consoleSettings.oidc;
    if (!s) throw new ApiError('not_found', 'Single sign-on is not configured.');
    return s;
  }

  async start(next: string): Promise<StartedSignIn> {
    const ttl = this.settings.stateTtlMs;
    const request = await this.rp.authorizationRequest().catch((err: unknown) => {
      throw startError(err);
    });
    const browserBinding = randomBytes(32).toString('base64url');
    await this.pending.put(
      request.state,
      {
        codeVerifier: request.codeVerifier,
        nonce: request.nonce,
        browserHash: sha256(browserBinding),
        next,
      },
      ttl,
    );
    return { url: request.url.href, browserBinding };
  }

  /**
   * Finishes the sign-in a callback answers: its state must be one this console issued, unused,
   * to this browser; the code is redeemed and the ID token validated; the user is created or
   * refreshed from the claims (role, groups, team memberships) and a session opened. Every refusal is recorded, then thrown.
   */
  async finish(
    query: URLSearchParams,
    browserBinding: string | undefined,
    origin: SignInOrigin,
    previousSessionId: string | undefined,
  ): Promise<FinishedSignIn> {
    const seen: { email: string | null } = { email: null };
    try {
      return await this.complete(query, browserBinding, origin, previousSessionId, seen);
    } catch (err) {
      const refusal = callbackError(err);
      // A store outage or a bug is an outcome too, as the filter will answer it.
      const answer = refusal ?? toApiError(err, CALLBACK);
      await this.events.record({
        ok: false,
        method: 'oidc',
        email: seen.email,
        status: answer.status,
        reason: answer.message,
        ...origin,
      });
      throw refusal ?? err;
    }
  }

  private async complete(
    query: URLSearchParams,
    browserBinding: string | undefined,
    origin: SignInOrigin,
    previousSessionId: string | undefined,
    seen: { email: string | null },
  ): Promise<FinishedSignIn> {
    const settings = this.settings;
    const state = query.get('state');
    if (!state) throw new ApiError('invalid_request', 'The callback carries no state.');
    const taken = await this.pending.take(state, browserBinding);
    if (taken.outcome === 'unknown') throw new ApiError('invalid_request', UNKNOWN_STATE);
    // Login CSRF (a callback URL someone else started) or a leaked callback URL replayed from
    // another browser: refused, and the sign-in it names is left for its own browser to finish.
    if (taken.outcome === 'another-browser')
      throw new ApiError('invalid_request', 'This sign-in was started in another browser; start again.');
    const pending = taken.pending;
    const claims = await this.rp.redeem(query, { state, ...pending });
    seen.email =
      typeof claims[settings.claims.email] === 'string' ? String(claims[settings.claims.email]) : null;
    const identity = this.identityOf(claims);
    const { user, created } = await upsertOidcUser(
      this.db,
      identity,
      settings.claims.defaultRole,
      nanosOf(this.consoleSettings.defaultGrantCredits),
    );
    if (user.status !== 'active') throw new ApiError('unauthenticated', 'This account is disabled.');
    // Before the session opens, so the console it lands in shows the teams the claims gave.
    if (identity.teams !== undefined) await this.teams.sync(user, identity.teams, origin);
    const signedIn = await this.auth.openSession(user, previousSessionId);
    await this.events.record({
      ok: true,
      method: 'oidc',
      userId: user.id,
      email: user.email,
      role: user.role,
      created,
      ...origin,
    });
    return { signedIn, next: pending.next };
  }

  private identityOf(claims: Readonly<Record<string, unknown>>): ReturnType<typeof mapClaims> {
    try {
      return mapClaims(claims, this.settings.claims, this.catalog.groups);
    } catch (err) {
      if (err instanceof ClaimRefusal) throw new ApiError('forbidden', err.message);
      throw err;
    }
  }
}
