import { Inject, Injectable, Logger } from '@nestjs/common';
import { type Kysely } from 'kysely';
import { Catalog } from '#libs/config';
import {
  type BudgetRow,
  type Database,
  deleteBudget,
  findConsoleKey,
  findConsoleUser,
  deleteTeamBudget,
  insertBudget,
  keyHashesOfTeam,
  keyHashesOfUser,
  listBudgets,
  listTeamBudgets,
} from '#libs/db';
import {
  accountSlot,
  budgetOfRow,
  budgetRowSlot,
  budgetSpend,
  keyAccountSlot,
  rebuildQuotas,
} from '#libs/quota';
import { type RedisClient, type RedisKeys } from '#libs/redis';
import { type AuditBy } from '../audit/audit-context.js';
import { AuditTrail } from '../audit/audit-trail.service.js';
import { creditsOf, nanosOf } from '../credits.js';
import { ApiError, notFound } from '../http/api-error.js';
import { type Page, pageOf } from '../http/page.js';
import { type Announcement, KeyInvalidations } from '../keys/key-invalidations.service.js';
import { CATALOG, DB, REDIS, REDIS_KEYS } from '../tokens.js';
import { type BudgetView, budgetView } from './budget-view.js';
import { type CreateBudgetInput, type ListBudgetsInput } from './budgets.schema.js';

/**
 * Whose budgets: one key of a user, or the user's own (all its keys together), or with `teamId`
 * (and keyId null) a team's, over all its keys (docs/teams.md).
 */
export interface BudgetOwner {
  readonly userId: string;
  readonly keyId: string | null;
  readonly teamId?: string | null;
  /** The quota account the budgets count in (a team key's is its team's); default the user's. */
  readonly slot?: string;
}

/** A team's own budgets (no user: `userId` is not read for a team owner). */
export const teamBudgetOwner = (teamId: string): BudgetOwner => ({
  userId: '',
  keyId: null,
  teamId,
  slot: accountSlot({ kind: 'team', id: teamId }),
});

/**
 * Budgets of keys (for their owner) and of users (for admins). A change reaches the edges as a
 * key invalidation of the keys it limits (they carry budgets in their cached record), through the
 * outbox like a revocation; the owner's Redis copy is then rebuilt so a new budget starts with
 * the spend its window already holds.
 */
@Injectable()
export class BudgetsService {
  private readonly logger = new Logger(BudgetsService.name);

  constructor(
    @Inject(DB) private readonly db: Kysely<Database>,
    @Inject(REDIS) private readonly redis: RedisClient,
    @Inject(REDIS_KEYS) private readonly keys: RedisKeys,
    @Inject(CATALOG) private readonly catalog: Catalog,
    private readonly invalidations: KeyInvalidations,
    private readonly audit: AuditTrail,
  ) {}

  /** The owner of key `keyId` when `userId` holds it (404 otherwise: other users' keys stay secret). */
  async keyOwner(keyId: string, userId: string): Promise<BudgetOwner> {
    const key = await findConsoleKey(this.db, keyId, userId);
    if (!key) throw notFound('Key');
    return { userId, keyId, slot: keyAccountSlot({ userId, teamId: key.team_id }) };
  }

  async userOwner(userId: string): Promise<BudgetOwner> {
    if (!(await findConsoleUser(this.db, userId))) throw notFound('User');
    return { userId, keyId: null };
  }

  /** A page of the owner's budgets, oldest first; each with its spend (one read per budget shown). */
  async list(owner: BudgetOwner, q: ListBudgetsInput): Promise<Page<BudgetView>> {
    const page = { after: q.cursor, limit: q.limit + 1 };
    const rows = owner.teamId
      ? await listTeamBudgets(this.db, owner.teamId, page)
      : await listBudgets(this.db, owner, page);
    const { items, nextCursor } = pageOf(
      rows,
      q.limit,
      (b) => [b.created_at_exact, b.id],
      (row) => row,
    );
    return { items: await Promise.all(items.map((row) => this.view(row))), nextCursor };
  }

  async create(
    owner: BudgetOwner,
    input: CreateBudgetInput,
    createdBy: string | null,
    by: AuditBy,
  ): Promise<{ budget: BudgetView; invalidation: Announcement }> {
    this.checkModels(input);
    const { result, invalidation } = await this.invalidations.change(async (trx) => {
      const row = await insertBudget(trx, {
        user_id: owner.teamId ? null : owner.userId,
        team_id: owner.teamId ?? null,
        key_id: owner.keyId,
        period: input.period,
        window_kind: input.window,
        limit_nanos: nanosOf(input.limitCredits),
        model_group: input.modelGroup ?? null,
        models: input.models ?? null,
        created_by: createdBy,
      });
      const entry = await this.audit.append(trx, by, {
        action: 'budget.create',
        target: { type: 'budget', id: row.id },
        after: auditedBudget(row),
      });
      return { result: { row, entry }, keyHashes: await this.hashesOf(trx, owner) };
    });
    this.audit.emit(result.entry);
    await this.refresh(owner.slot ?? owner.userId);
    return { budget: await this.view(result.row), invalidation };
  }

  async remove(owner: BudgetOwner, id: string, by: AuditBy): Promise<{ invalidation: Announcement }> {
    const { result, invalidation } = await this.invalidations.change(async (trx) => {
      const row = owner.teamId
        ? await deleteTeamBudget(trx, owner.teamId, id)
        : await deleteBudget(trx, id, owner);
      if (!row) return { result: null, keyHashes: [] };
      const entry = await this.audit.append(trx, by, {
        action: 'budget.delete',
        target: { type: 'budget', id: row.id },
        before: auditedBudget(row),
      });
      return { result: entry, keyHashes: await this.hashesOf(trx, owner) };
    });
    if (!result) throw notFound('Budget');
    this.audit.emit(result);
    return { invalidation };
  }

  private async view(row: BudgetRow): Promise<BudgetView> {
    const now = Date.now();
    return budgetView(
      row,
      await budgetSpend(this.db, budgetRowSlot(row), budgetOfRow(row), this.catalog.groups, now),
      now,
    );
  }

  private async hashesOf(trx: Kysely<Database>, owner: BudgetOwner): Promise<string[]> {
    if (owner.teamId) return keyHashesOfTeam(trx, owner.teamId);
    if (owner.keyId === null) return keyHashesOfUser(trx, owner.userId);
    const key = await findConsoleKey(trx, owner.keyId, owner.userId);
    return key ? [key.key_hash] : [];
  }

  private checkModels(input: CreateBudgetInput): void {
    if (input.modelGroup != null && !this.catalog.groups.has(input.modelGroup))
      throw new ApiError('invalid_request', `Unknown group "${input.modelGroup}".`);
    const unknown = input.models?.find((m) => !this.catalog.models.has(m));
    if (unknown !== undefined) throw new ApiError('invalid_request', `Unknown model "${unknown}".`);
  }

  /** The copy Redis holds (if any) gets the new window's spend now; the worker's sweep would within a minute. */
  private async refresh(slot: string): Promise<void> {
    await rebuildQuotas({ db: this.db, redis: this.redis, keys: this.keys }, [slot], {
      mode: 'refresh',
      modelGroups: this.catalog.groups,
    }).catch((err: Error) => this.logger.warn(`budget counters of ${slot} not rebuilt now: ${err.message}`));
  }
}

/** A budget as the audit trail keeps it: whose, over what, how much. */
const auditedBudget = (row: BudgetRow): Record<string, unknown> => ({
  userId: row.user_id,
  teamId: row.team_id,
  keyId: row.key_id,
  period: row.period,
  window: row.window_kind,
  limitCredits: creditsOf(row.limit_nanos),
  modelGroup: row.model_group,
  models: row.models,
});
