import { Inject, Injectable, Logger } from '@nestjs/common';
import { type Kysely } from 'kysely';
import { appendAuditEvent, type AuditEvent, auditFields, auditLogRecord } from '#libs/audit';
import { type AuditEventRow, type Database } from '#libs/db';
import { ApiError } from '../http/api-error.js';
import { DB } from '../tokens.js';
import { type AuditBy } from './audit-context.js';

/** A sign-in's outcome as auth/sign-in-events.ts reports it (password and SSO alike). */
export type SignInAuditOutcome =
  | {
      readonly ok: true;
      readonly method: string;
      readonly userId: string;
      readonly email: string;
      readonly role: string;
      readonly created: boolean;
      readonly ip: string;
      readonly userAgent: string | null;
    }
  | {
      readonly ok: false;
      readonly method: string;
      readonly email: string | null;
      readonly status: number;
      readonly reason: string;
      readonly ip: string;
      readonly userAgent: string | null;
    };

/** An event as a console service describes it: the trail adds who and where from `AuditBy`. */
export type AuditChange = Omit<AuditEvent, 'actor' | 'origin'>;

/**
 * The console's side of the audit trail. A change is recorded in the transaction that makes it
 * when the service has one (`append`, then `emit` once committed): no change without its record.
 * Otherwise right after it (`record`): if that fails the request fails, and the event goes to the
 * error log in full so it is not lost in silence. A refusal (`refused`) never turns into a 500:
 * the caller gets the refusal it earned and a failed record is logged the same way.
 */
@Injectable()
export class AuditTrail {
  private readonly logger = new Logger('Audit');

  constructor(@Inject(DB) private readonly db: Kysely<Database>) {}

  /** Inside the caller's transaction; call `emit` with the row once it is committed. */
  append(trx: Kysely<Database>, by: AuditBy, change: AuditChange): Promise<AuditEventRow> {
    return appendAuditEvent(trx, { ...change, actor: by.actor, origin: by.origin });
  }

  /** Writes the OpenTelemetry log record of a committed event. */
  emit(row: AuditEventRow): void {
    this.logger.log(auditLogRecord(row));
  }

  /** A change already made: recorded in a transaction of its own. */
  async record(by: AuditBy, change: AuditChange): Promise<void> {
    const event: AuditEvent = { ...change, actor: by.actor, origin: by.origin };
    let row: AuditEventRow;
    try {
      row = await appendAuditEvent(this.db, event);
    } catch (err) {
      this.lost(event, err);
      throw new ApiError('service_unavailable', 'The change was made but not recorded in the audit trail.', {
        'retry-after': '5',
      });
    }
    this.emit(row);
  }

  /** A refusal: recorded if the database lets it, logged in full if not; never throws. */
  async refused(by: AuditBy, change: AuditChange): Promise<void> {
    const event: AuditEvent = { ...change, outcome: 'refused', actor: by.actor, origin: by.origin };
    try {
      this.emit(await appendAuditEvent(this.db, event));
    } catch (err) {
      this.lost(event, err);
    }
  }

  /**
   * A sign-in: every refusal, and a success when the user is privileged (any role but `user`) or
   * was created by it (SSO's first sign-in). A member's routine sign-in is not a change.
   */
  async signIn(outcome: SignInAuditOutcome): Promise<void> {
    const origin = { ip: outcome.ip, userAgent: outcome.userAgent };
    if (!outcome.ok)
      return this.refused(
        { actor: { kind: 'anonymous', email: outcome.email }, origin },
        {
          action: 'auth.sign_in',
          target: { type: 'user' },
          after: { method: outcome.method, status: outcome.status },
          reason: outcome.reason,
        },
      );
    if (outcome.role === 'member' && !outcome.created) return;
    await this.record(
      { actor: { kind: 'user', id: outcome.userId, email: outcome.email }, origin },
      {
        action: 'auth.sign_in',
        target: { type: 'user', id: outcome.userId },
        after: { method: outcome.method, role: outcome.role, created: outcome.created },
      },
    );
  }

  private lost(event: AuditEvent, err: unknown): void {
    this.logger.error({
      msg: `audit event not recorded: ${(err as Error).message}`,
      // Masked and bounded as a row would be.
      'audit.lost': auditFields(event, new Date()),
    });
  }
}
