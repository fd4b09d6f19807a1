import { Injectable, Logger } from '@nestjs/common';
import { type UserRole } from '#libs/db';
import { AuditTrail } from '../audit/audit-trail.service.js';

export type SignInMethod = 'password' | 'oidc';

/** Where a sign-in attempt came from. */
export interface SignInOrigin {
  readonly ip: string;
  readonly userAgent: string | null;
}

/** One sign-in attempt's outcome, whatever the method. */
export type SignInOutcome =
  | (SignInOrigin & {
      readonly ok: true;
      readonly method: SignInMethod;
      readonly userId: string;
      readonly email: string;
      readonly role: UserRole;
      /** The user was created by this sign-in (SSO's first sign-in). */
      readonly created: boolean;
    })
  | (SignInOrigin & {
      readonly ok: false;
      readonly method: SignInMethod;
      /** Who it claimed to be, when known (a forged callback names no one). */
      readonly email: string | null;
      /** The refusal as the caller was told it. */
      readonly status: number;
      readonly reason: string;
    });

/**
 * The one place every sign-in outcome passes (password and SSO, success and refusal): the audit
 * trail records sign-ins here. Refusals are warnings: a forged or replayed callback, a token that
 * did not validate, a wrong password, each is worth an operator's look.
 */
@Injectable()
export class SignInEvents {
  private readonly logger = new Logger('SignIn');

  constructor(private readonly audit: AuditTrail) {}

  async record(outcome: SignInOutcome): Promise<void> {
    await this.audit.signIn(outcome);
    if (outcome.ok)
      this.logger.log(
        `${outcome.method} sign-in of ${outcome.email} (${outcome.role}${outcome.created ? ', new user' : ''}) from ${outcome.ip}`,
      );
    else
      this.logger.warn(
        `${outcome.method} sign-in refused (${outcome.status}) for ${outcome.email ?? 'an unknown user'} from ${outcome.ip}: ${outcome.reason}`,
      );
  }
}
