import { Inject, Injectable } from '@nestjs/common';
import { type Kysely } from 'kysely';
import { displayPrefix, generateApiKey, hashApiKey } from '#libs/auth';
import { Catalog } from '#libs/config';
import {
  type ConsoleKeyRow,
  type Database,
  findConsoleKey,
  insertApiKey,
  listConsoleKeys,
  revokeApiKey,
} from '#libs/db';
import { type AuditBy } from '../audit/audit-context.js';
import { AuditTrail } from '../audit/audit-trail.service.js';
import { type ConsoleSettings } from '../console-settings.js';
import { nanosOf } from '../credits.js';
import { allowedGroups } from '../groups/group-access.js';
import { ApiError, notFound } from '../http/api-error.js';
import { type Page, pageOf } from '../http/page.js';
import { type SessionUser } from '../session/principal.js';
import { CATALOG, DB, SETTINGS } from '../tokens.js';
import { type Announcement, KeyInvalidations } from './key-invalidations.service.js';
import { type CreateKeyInput, type ListAllKeysInput, type ListKeysInput } from './keys.schema.js';
import { type KeyView, keyView } from './key-view.js';

export type AdminKeyView = KeyView & { readonly userId: string; readonly userEmail: string };

/** A key with its owner, as admins and team admins see it. */
export const ownedKeyView = (row: ConsoleKeyRow, now: Date): AdminKeyView => ({
  ...keyView(row, now),
  userId: row.user_id,
  userEmail: row.user_email,
});

@Injectable()
export class KeysService {
  constructor(
    @Inject(DB) private readonly db: Kysely<Database>,
    @Inject(CATALOG) private readonly catalog: Catalog,
    @Inject(SETTINGS) private readonly settings: ConsoleSettings,
    private readonly invalidations: KeyInvalidations,
    private readonly audit: AuditTrail,
  ) {}

  /** A page of one user's keys, newest first. */
  async list(userId: string, q: ListKeysInput): Promise<Page<KeyView>> {
    return this.page({ ...q, userId }, (row, now) => keyView(row, now));
  }

  /** A page of everyone's keys (or one user's, one team's), newest first, with their owners. */
  async listAll(q: ListAllKeysInput): Promise<Page<AdminKeyView>> {
    return this.page(q, ownedKeyView);
  }

  /** A page of keys of the scope `q` names, each shown by `view`. */
  async page<T>(
    q: ListKeysInput & { readonly userId?: string | undefined; readonly teamId?: string | undefined },
    view: (row: ConsoleKeyRow, now: Date) => T,
  ): Promise<Page<T>> {
    const now = new Date();
    const rows = await listConsoleKeys(this.db, {
      userId: q.userId,
      teamId: q.teamId,
      state: q.state,
      search: q.q,
      before: q.cursor,
      limit: q.limit + 1,
    });
    return pageOf(
      rows,
      q.limit,
      (k) => [k.created_at_exact, k.id],
      (row) => view(row, now),
    );
  }

  /** Creates a key in a group the user may use; the raw secret leaves here once and is never stored. */
  async create(
    user: SessionUser,
    input: CreateKeyInput,
    by: AuditBy,
  ): Promise<{ key: KeyView; secret: string }> {
    if (!allowedGroups(user, this.settings.defaultGroups, this.catalog).includes(input.group))
      throw new ApiError('forbidden', `You may not create keys in group "${input.group}".`);
    return this.insert(user.id, null, input, by);
  }

  /**
   * Creates a key of `ownerId` that spends team `team`'s credits (docs/teams.md), in a group the
   * team allows; the caller (TeamSpaceService) has checked who may ask for it.
   */
  async createForTeam(
    ownerId: string,
    team: { readonly id: string; readonly groups: readonly string[] },
    input: CreateKeyInput,
    by: AuditBy,
  ): Promise<{ key: KeyView; secret: string }> {
    if (!team.groups.includes(input.group) || !this.catalog.groups.has(input.group))
      throw new ApiError('forbidden', `The team may not create keys in group "${input.group}".`);
    return this.insert(ownerId, team.id, input, by);
  }

  private async insert(
    ownerId: string,
    teamId: string | null,
    input: CreateKeyInput,
    by: AuditBy,
  ): Promise<{ key: KeyView; secret: string }> {
    const secret = generateApiKey();
    const row = await insertApiKey(this.db, {
      user_id: ownerId,
      team_id: teamId,
      name: input.name,
      key_hash: hashApiKey(secret),
      display_prefix: displayPrefix(secret),
      group_name: input.group,
      expires_at: input.expiresAt ?? null,
      spend_limit_nanos: input.spendLimitCredits == null ? null : nanosOf(input.spendLimitCredits),
      rpm_limit: input.rpmLimit ?? null,
      tpm_limit: input.tpmLimit ?? null,
    });
    const key = keyView(row);
    // Its display prefix only: the secret leaves in the response and nowhere else.
    await this.audit.record(by, {
      action: 'key.create',
      target: { type: 'key', id: row.id },
      after: {
        ownerId,
        ...(teamId === null ? {} : { teamId }),
        name: key.name,
        displayPrefix: key.displayPrefix,
        group: key.group,
        expiresAt: key.expiresAt,
        spendLimitCredits: key.spendLimitCredits,
        rpmLimit: key.rpmLimit,
        tpmLimit: key.tpmLimit,
      },
    });
    return { key, secret };
  }

  /**
   * Revokes a key of `ownerId` (any key when undefined: admin) and tells every edge to drop it; a
   * key revoked already is announced again (an earlier announcement may have been lost).
   * Someone else's key is "not found", never "forbidden": ids of other users' keys stay secret.
   */
  async revoke(
    id: string,
    by: AuditBy,
    ownerId?: string,
  ): Promise<{ key: KeyView; invalidation: Announcement }> {
    const before = await findConsoleKey(this.db, id, ownerId);
    if (!before) throw notFound('Key');
    const { result, invalidation } = await this.invalidations.change(async (trx) => {
      const row = await revokeApiKey(trx, id);
      if (!row) return { result: null, keyHashes: [] };
      const entry = await this.audit.append(trx, by, {
        action: 'key.revoke',
        target: { type: 'key', id },
        before: {
          ownerId: row.user_id,
          name: row.name,
          displayPrefix: row.display_prefix,
          status: before.status,
        },
        after: {
          ownerId: row.user_id,
          name: row.name,
          displayPrefix: row.display_prefix,
          status: row.status,
        },
      });
      return { result: { row, entry }, keyHashes: [row.key_hash] };
    });
    if (!result) throw notFound('Key');
    this.audit.emit(result.entry);
    return { key: keyView(result.row), invalidation };
  }
}
