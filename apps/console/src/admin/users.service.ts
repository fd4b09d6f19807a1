import { Inject, Injectable, Logger } from '@nestjs/common';
import { type Kysely } from 'kysely';
import { hashPassword } from '#libs/auth';
import { Catalog } from '#libs/config';
import {
  type ConsoleUserRow,
  type Database,
  findConsoleUser,
  insertConsoleUser,
  keyHashesOfUser,
  listConsoleUsers,
  updateConsoleUser,
} from '#libs/db';
import { grantCredits } from '#libs/quota';
import { type RedisClient, type RedisKeys } from '#libs/redis';
import { type AuditBy } from '../audit/audit-context.js';
import { AuditTrail } from '../audit/audit-trail.service.js';
import { type ConsoleSettings } from '../console-settings.js';
import { creditsOf, nanosOf } from '../credits.js';
import { allowedGroups } from '../groups/group-access.js';
import { ApiError, notFound } from '../http/api-error.js';
import { type Page, pageOf } from '../http/page.js';
import { type Announcement, KeyInvalidations } from '../keys/key-invalidations.service.js';
import { SessionStore } from '../session/session.store.js';
import { CATALOG, DB, REDIS, REDIS_KEYS, SETTINGS } from '../tokens.js';
import { type CreateUserInput, type ListUsersInput, type UpdateUserInput } from './users.schema.js';

export interface UserView {
  readonly id: string;
  readonly email: string;
  readonly role: ConsoleUserRow['role'];
  readonly status: ConsoleUserRow['status'];
  /** As set by an admin; null = the default groups. */
  readonly groups: string[] | null;
  /** What the user may actually use. */
  readonly effectiveGroups: string[];
  readonly createdAt: string;
  readonly balanceCredits: number;
}

@Injectable()
export class UsersService {
  private readonly logger = new Logger(UsersService.name);

  constructor(
    @Inject(DB) private readonly db: Kysely<Database>,
    @Inject(REDIS) private readonly redis: RedisClient,
    @Inject(REDIS_KEYS) private readonly keys: RedisKeys,
    @Inject(CATALOG) private readonly catalog: Catalog,
    @Inject(SETTINGS) private readonly settings: ConsoleSettings,
    private readonly sessions: SessionStore,
    private readonly invalidations: KeyInvalidations,
    private readonly audit: AuditTrail,
  ) {}

  /** One page in email order; `nextCursor` carries the page's last email. */
  async list(q: ListUsersInput): Promise<Page<UserView>> {
    const rows = await listConsoleUsers(this.db, {
      search: q.q,
      role: q.role,
      status: q.status,
      afterEmail: q.cursor,
      limit: q.limit + 1,
    });
    return pageOf(
      rows,
      q.limit,
      (u) => [u.email],
      (u) => this.view(u),
    );
  }

  async create(input: CreateUserInput, by: AuditBy): Promise<UserView> {
    this.checkGroups(input.groups);
    const passwordHash = await hashPassword(input.password);
    const entry = await this.db.transaction().execute(async (trx) => {
      const created = await insertConsoleUser(trx, {
        email: input.email,
        passwordHash,
        role: input.role,
        groups: input.groups ?? null,
        grantNanos: nanosOf(this.settings.defaultGrantCredits),
      });
      if (!created) return null;
      return this.audit.append(trx, by, {
        action: 'user.create',
        target: { type: 'user', id: created.id },
        after: { email: input.email, role: input.role, groups: input.groups ?? null },
      });
    });
    if (!entry) throw new ApiError('conflict', `A user with email ${input.email} exists already.`);
    this.audit.emit(entry);
    return this.get(entry.target_id!);
  }

  /**
   * Disabling ends the user's sessions and makes every edge drop the user's keys (the edge folds
   * the owner's status into each key); enabling lets edges look them up afresh.
   */
  async update(
    id: string,
    changes: UpdateUserInput,
    actingUserId: string | null,
    by: AuditBy,
  ): Promise<{ user: UserView; invalidation: Announcement }> {
    this.checkGroups(changes.groups);
    if (id === actingUserId && (changes.status === 'disabled' || (changes.role && changes.role !== 'admin')))
      throw new ApiError('conflict', 'You cannot disable yourself or take away your own admin role.');
    const before = await findConsoleUser(this.db, id);
    if (!before) throw notFound('User');
    const { result: entry, invalidation } = await this.invalidations.change(async (trx) => {
      const row = await updateConsoleUser(trx, id, changes);
      if (!row) return { result: null, keyHashes: [] };
      const statusChanged = changes.status !== undefined && changes.status !== before.status;
      const recorded = await this.audit.append(trx, by, {
        action: userAction(before, changes),
        target: { type: 'user', id },
        before: { email: before.email, role: before.role, status: before.status, groups: before.groups },
        after: { email: row.email, role: row.role, status: row.status, groups: row.groups },
      });
      return { result: recorded, keyHashes: statusChanged ? await keyHashesOfUser(trx, id) : [] };
    });
    if (!entry) throw notFound('User');
    this.audit.emit(entry);
    // A disabled user is out; a new role starts from a fresh sign-in, with what the page shows for it.
    const roleChanged = changes.role !== undefined && changes.role !== before.role;
    if (changes.status === 'disabled' || roleChanged) await this.sessions.destroyAllOf(id);
    return { user: await this.get(id), invalidation };
  }

  async grant(
    userId: string,
    credits: number,
    note: string,
    grantedBy: string | null,
    by: AuditBy,
  ): Promise<number> {
    const user = await findConsoleUser(this.db, userId);
    if (!user) throw notFound('User');
    const balance = await grantCredits(
      { db: this.db, redis: this.redis, keys: this.keys },
      { userId, nanos: nanosOf(credits), grantedBy, note },
      (message) => this.logger.warn(message),
    );
    // grantCredits commits its own transaction (and updates Redis): recorded right after it.
    await this.audit.record(by, {
      action: 'credits.grant',
      target: { type: 'user', id: userId },
      before: { balanceCredits: creditsOf(user.balance_nanos) },
      after: { balanceCredits: creditsOf(balance), grantedCredits: credits, note },
    });
    return creditsOf(balance);
  }

  private async get(id: string): Promise<UserView> {
    const row = await findConsoleUser(this.db, id);
    if (!row) throw notFound('User');
    return this.view(row);
  }

  private checkGroups(groups: readonly string[] | null | undefined): void {
    const unknown = groups?.filter((g) => !this.catalog.groups.has(g)) ?? [];
    if (unknown.length) throw new ApiError('invalid_request', `Unknown group(s): ${unknown.join(', ')}.`);
  }

  private view(u: ConsoleUserRow): UserView {
    return {
      id: u.id,
      email: u.email,
      role: u.role,
      status: u.status,
      groups: u.groups,
      effectiveGroups: allowedGroups(u, this.settings.defaultGroups, this.catalog),
      createdAt: u.created_at.toISOString(),
      balanceCredits: creditsOf(u.balance_nanos),
    };
  }
}

/** `user.disable`, `user.enable`, `user.role`, `user.groups`: one aspect; `user.update`: several. */
function userAction(before: ConsoleUserRow, changes: UpdateUserInput): string {
  const aspects: string[] = [];
  if (changes.status !== undefined && changes.status !== before.status)
    aspects.push(changes.status === 'disabled' ? 'disable' : 'enable');
  if (changes.role !== undefined && changes.role !== before.role) aspects.push('role');
  if (changes.groups !== undefined) aspects.push('groups');
  return aspects.length === 1 ? `user.${aspects[0]}` : 'user.update';
}
