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
import { type ConsoleSettings } from '../console-settings.js';
import { creditsOf, nanosOf } from '../credits.js';
import { allowedGroups } from '../groups/group-access.js';
import { ApiError, notFound } from '../http/api-error.js';
import { type Announcement, KeyInvalidations } from '../keys/key-invalidations.service.js';
import { SessionStore } from '../session/session.store.js';
import { CATALOG, DB, REDIS, REDIS_KEYS, SETTINGS } from '../tokens.js';
import { type CreateUserInput, type UpdateUserInput } from './users.schema.js';

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
  ) {}

  async list(): Promise<UserView[]> {
    return (await listConsoleUsers(this.db)).map((u) => this.view(u));
  }

  async create(input: CreateUserInput): Promise<UserView> {
    this.checkGroups(input.groups);
    const created = await insertConsoleUser(this.db, {
      email: input.email,
      passwordHash: await hashPassword(input.password),
      role: input.role,
      groups: input.groups ?? null,
      grantNanos: nanosOf(this.settings.defaultGrantCredits),
    });
    if (!created) throw new ApiError('conflict', `A user with email ${input.email} exists already.`);
    return this.get(created.id);
  }

  /**
   * Disabling ends the user's sessions and makes every edge drop the user's keys (the edge folds
   * the owner's status into each key); enabling lets edges look them up afresh.
   */
  async update(
    id: string,
    changes: UpdateUserInput,
    actingUserId: string | null,
  ): Promise<{ user: UserView; invalidation: Announcement }> {
    this.checkGroups(changes.groups);
    if (id === actingUserId && (changes.status === 'disabled' || changes.role === 'user'))
      throw new ApiError('conflict', 'You cannot disable yourself or take away your own admin role.');
    const before = await findConsoleUser(this.db, id);
    if (!before) throw notFound('User');
    const { result: updated, invalidation } = await this.invalidations.change(async (trx) => {
      const row = await updateConsoleUser(trx, id, changes);
      const statusChanged =
        row !== undefined && changes.status !== undefined && changes.status !== before.status;
      return { result: row, keyHashes: statusChanged ? await keyHashesOfUser(trx, id) : [] };
    });
    if (!updated) throw notFound('User');
    if (changes.status === 'disabled') await this.sessions.destroyAllOf(id);
    return { user: await this.get(id), invalidation };
  }

  async grant(userId: string, credits: number, note: string, grantedBy: string | null): Promise<number> {
    if (!(await findConsoleUser(this.db, userId))) throw notFound('User');
    const balance = await grantCredits(
      { db: this.db, redis: this.redis, keys: this.keys },
      { userId, nanos: nanosOf(credits), grantedBy, note },
      (message) => this.logger.warn(message),
    );
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
