import { Inject, Injectable, Logger } from '@nestjs/common';
import { type Kysely } from 'kysely';
import {
  type AdminToken,
  type Database,
  findAdminToken,
  findAdminTokenByHash,
  insertAdminToken,
  listAdminTokens,
  revokeAdminToken,
  touchAdminToken,
} from '#libs/db';
import { type AuditBy } from '../audit/audit-context.js';
import { AuditTrail } from '../audit/audit-trail.service.js';
import { notFound } from '../http/api-error.js';
import { type Page, pageOf } from '../http/page.js';
import { type Principal, type TokenIdentity } from '../session/principal.js';
import { DB } from '../tokens.js';
import { adminTokenHash, newAdminTokenSecret } from './admin-token-secret.js';
import { type AdminTokenView, adminTokenView, tokenState } from './admin-token-view.js';
import { type CreateAdminTokenInput, type ListAdminTokensInput } from './admin-tokens.schema.js';

const DAY_MS = 86_400_000;
/** Last use is written at most this often per token: a busy script must not cost a write per call. */
export const LAST_USE_INTERVAL_MS = 60_000;

/** A bearer `gwa_...` token checked against the table: who it is, or why it is refused. */
export type TokenCheck =
  | { readonly ok: true; readonly identity: TokenIdentity }
  | {
      readonly ok: false;
      /** In words, for the audit trail and the 401's message. */
      readonly reason: string;
      /** The token when it exists (expired or revoked): the audit names it as the actor. */
      readonly token: { readonly id: string; readonly name: string } | null;
    };

/** What the table says about a presented token, given the time: pure, unit-tested. */
export function checkToken(row: AdminToken | undefined, now: Date): TokenCheck {
  if (!row) return { ok: false, reason: 'unknown admin token', token: null };
  const token = { id: row.id, name: row.name };
  switch (tokenState(row, now)) {
    case 'revoked':
      return { ok: false, reason: 'revoked admin token', token };
    case 'expired':
      return { ok: false, reason: `admin token expired at ${row.expires_at.toISOString()}`, token };
    case 'active':
      return { ok: true, identity: { id: row.id, name: row.name, role: row.role } };
  }
}

/**
 * Named admin tokens (issue 24): created in the console with a role and an expiry, the secret
 * shown once and only its SHA-256 kept, revocable, their last use recorded (at most once a minute
 * per token per console process, and the UPDATE itself skips a row written less than a minute
 * ago, so several consoles do not multiply the writes).
 */
@Injectable()
export class AdminTokens {
  private readonly logger = new Logger('AdminTokens');
  /** Token id -> when this process last wrote its last_used_at (one entry per token used: small). */
  private readonly lastWritten = new Map<string, number>();

  constructor(
    @Inject(DB) private readonly db: Kysely<Database>,
    private readonly audit: AuditTrail,
  ) {}

  private now(): Date {
    return new Date();
  }

  async list(q: ListAdminTokensInput): Promise<Page<AdminTokenView>> {
    const now = this.now();
    const rows = await listAdminTokens(this.db, { before: q.cursor, limit: q.limit + 1 });
    return pageOf(
      rows,
      q.limit,
      (t) => [t.created_at_exact, t.id],
      (r) => adminTokenView(r, now),
    );
  }

  async create(
    input: CreateAdminTokenInput,
    creator: Principal,
    by: AuditBy,
  ): Promise<{ token: AdminTokenView; secret: string }> {
    const { secret, hash, displayPrefix } = newAdminTokenSecret();
    const now = this.now();
    const expiresAt = new Date(now.getTime() + input.expiresInDays * DAY_MS);
    const entry = await this.db.transaction().execute(async (trx) => {
      const row = await insertAdminToken(trx, {
        name: input.name,
        role: input.role,
        token_hash: hash,
        display_prefix: displayPrefix,
        created_by_user: creator.kind === 'session' ? creator.user.id : null,
        created_by: creator.kind === 'session' ? creator.user.email : creator.token.name,
        created_at: now,
        expires_at: expiresAt,
      });
      const recorded = await this.audit.append(trx, by, {
        action: 'token.create',
        target: { type: 'admin_token', id: row.id },
        // Never the secret nor its hash: the display prefix is what the list shows.
        after: {
          name: row.name,
          role: row.role,
          expiresAt: row.expires_at.toISOString(),
          displayPrefix,
        },
      });
      return { row, recorded };
    });
    this.audit.emit(entry.recorded);
    return { token: adminTokenView(entry.row, now), secret };
  }

  /** Revokes a token; revoking one already revoked changes nothing and records nothing. */
  async revoke(id: string, by: AuditBy): Promise<AdminTokenView> {
    const before = await findAdminToken(this.db, id);
    if (!before) throw notFound('Token');
    const now = this.now();
    if (before.revoked_at !== null) return adminTokenView(before, now);
    const entry = await this.db.transaction().execute(async (trx) => {
      const row = await revokeAdminToken(trx, id);
      if (!row) return null;
      const recorded = await this.audit.append(trx, by, {
        action: 'token.revoke',
        target: { type: 'admin_token', id },
        before: { name: before.name, role: before.role, state: tokenState(before, now) },
        after: { name: row.name, role: row.role, state: 'revoked', revokedAt: row.revoked_at?.toISOString() },
      });
      return { row, recorded };
    });
    if (!entry) throw notFound('Token');
    this.audit.emit(entry.recorded);
    return adminTokenView(entry.row, now);
  }

  /** Checks a presented `gwa_...` secret; on success notes its use (throttled). */
  async authenticate(secret: string): Promise<TokenCheck> {
    const now = this.now();
    const check = checkToken(await findAdminTokenByHash(this.db, adminTokenHash(secret)), now);
    if (check.ok && check.identity.id !== null) await this.noteUse(check.identity.id, now);
    return check;
  }

  private async noteUse(id: string, now: Date): Promise<void> {
    const last = this.lastWritten.get(id);
    if (last !== undefined && now.getTime() - last < LAST_USE_INTERVAL_MS) return;
    this.lastWritten.set(id, now.getTime());
    try {
      await touchAdminToken(this.db, id, now, new Date(now.getTime() - LAST_USE_INTERVAL_MS));
    } catch (err) {
      // Last use is informative: a failed write must not refuse a valid token.
      this.logger.warn(`last use of admin token ${id} not recorded: ${String(err)}`);
    }
  }
}
