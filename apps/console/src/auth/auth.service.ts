import { Inject, Injectable, Logger } from '@nestjs/common';
import { type Kysely } from 'kysely';
import { hashPassword, needsRehash, verifyAgainstDummy, verifyPassword } from '#libs/auth';
import { type Database, findUserByEmail, setPasswordHash, type User } from '#libs/db';
import { type ConsoleSettings } from '../console-settings.js';
import { ApiError } from '../http/api-error.js';
import { toApiError } from '../http/api-exception.filter.js';
import { type NewSession, SessionStore } from '../session/session.store.js';
import { DB, SETTINGS } from '../tokens.js';
import { type SignInOrigin, SignInEvents } from './sign-in-events.js';
import { SignInThrottle } from './sign-in-throttle.store.js';

export interface SignedIn {
  readonly user: { readonly id: string; readonly email: string; readonly role: User['role'] };
  readonly session: NewSession;
}

const BAD_CREDENTIALS = 'Wrong email or password.';
const SIGN_IN = { method: 'POST', url: '/api/auth/sign-in' };

@Injectable()
export class AuthService {
  private readonly logger = new Logger(AuthService.name);

  constructor(
    @Inject(DB) private readonly db: Kysely<Database>,
    private readonly sessions: SessionStore,
    private readonly throttle: SignInThrottle,
    private readonly events: SignInEvents,
    @Inject(SETTINGS) private readonly settings: ConsoleSettings,
  ) {}

  /**
   * Checks the password (same work and same answer for an unknown email), then opens a brand-new
   * session and ends the one the browser came with, so no id chosen before sign-in survives it.
   */
  async signIn(
    email: string,
    password: string,
    origin: SignInOrigin,
    previousSessionId?: string,
  ): Promise<SignedIn> {
    try {
      const signedIn = await this.checkPassword(email, password, origin.ip, previousSessionId);
      const { id, role } = signedIn.user;
      await this.events.record({
        ok: true,
        method: 'password',
        userId: id,
        email,
        role,
        created: false,
        ...origin,
      });
      return signedIn;
    } catch (err) {
      // Recorded as the filter will answer it: a refusal, or a store outage's 503.
      const answer = toApiError(err, SIGN_IN);
      await this.events.record({
        ok: false,
        method: 'password',
        email,
        status: answer.status,
        reason: answer.message,
        ...origin,
      });
      throw err;
    }
  }

  private async checkPassword(
    email: string,
    password: string,
    ip: string,
    previousSessionId?: string,
  ): Promise<SignedIn> {
    // An SSO-only console: the provider's policies (MFA, offboarding) must not be bypassed.
    if (!this.settings.passwordSignIn) {
      const sso = this.settings.oidc?.displayName ?? 'single sign-on';
      throw new ApiError('forbidden', `Password sign-in is turned off; sign in with ${sso}.`);
    }
    const wait = await this.throttle.retryAfterSeconds(email, ip);
    if (wait > 0)
      throw new ApiError('rate_limited', `Too many failed sign-ins; try again in ${wait} s.`, {
        'retry-after': String(wait),
      });
    const user = await findUserByEmail(this.db, email);
    const ok = user?.password_hash
      ? await verifyPassword(password, user.password_hash)
      : await verifyAgainstDummy(password);
    if (!user || !ok) {
      await this.throttle.recordFailure(email, ip);
      throw new ApiError('unauthenticated', BAD_CREDENTIALS);
    }
    if (user.status !== 'active') throw new ApiError('unauthenticated', 'This account is disabled.');
    await this.throttle.recordSuccess(email);
    if (needsRehash(user.password_hash!))
      await setPasswordHash(this.db, user.id, await hashPassword(password)).catch((err: unknown) =>
        this.logger.warn(`rehash of a password failed: ${(err as Error).message}`),
      );
    return this.openSession(user, previousSessionId);
  }

  async openSession(user: User, previousSessionId?: string): Promise<SignedIn> {
    if (previousSessionId) await this.sessions.destroy(previousSessionId);
    const session = await this.sessions.create(user.id);
    return { user: { id: user.id, email: user.email, role: user.role }, session };
  }

  async signOut(sessionId: string, userId: string): Promise<void> {
    await this.sessions.destroy(sessionId, userId);
  }
}
