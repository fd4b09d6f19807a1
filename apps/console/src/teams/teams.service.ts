import { Inject, Injectable } from '@nestjs/common';
import { type Kysely } from 'kysely';
import { Catalog } from '#libs/config';
import {
  type AuditEventRow,
  type Database,
  deleteTeam,
  deleteTeamMember,
  findConsoleUser,
  findTeam,
  findTeamMember,
  insertTeam,
  keyHashesOfTeam,
  keyHashesOfTeamMember,
  listTeamGrants,
  pageTeams,
  lockTeam,
  updateTeam,
  upsertTeamMember,
} from '#libs/db';
import { grantTeamCredits } from '#libs/quota';
import { type RedisClient, type RedisKeys } from '#libs/redis';
import { type AuditBy } from '../audit/audit-context.js';
import { AuditTrail } from '../audit/audit-trail.service.js';
import { creditsOf, nanosOf } from '../credits.js';
import { ApiError, notFound } from '../http/api-error.js';
import { type Announcement, KeyInvalidations } from '../keys/key-invalidations.service.js';
import { CATALOG, DB, REDIS, REDIS_KEYS } from '../tokens.js';
import { type Page, pageOf } from '../http/page.js';
import {
  type AddMemberInput,
  type CreateTeamInput,
  FIRST_MEMBERS,
  type ListMembersInput,
  type ListTeamsInput,
  type UpdateTeamInput,
} from './teams.schema.js';
import { membersPage } from './team-members.js';
import { auditedTeam, type MemberView, type TeamView, teamView } from './team-view.js';

/** Postgres' unique and foreign-key violations: a taken name, a team that still has keys. */
const pgCode = (err: unknown): string | undefined => (err as { code?: string } | null)?.code;

export interface TeamGrantView {
  readonly credits: number;
  readonly note: string;
  readonly grantedBy: string | null;
  readonly createdAt: string;
}

/**
 * Teams for admins (docs/teams.md): create, rename, allowed groups, delete; members and team
 * admins; credits. Every change is recorded in the audit trail in the transaction that makes it
 * (credits right after, as user grants are). A change that can end team keys (a group taken
 * away, a member removed) is announced to the edges as a key invalidation of those keys: the key
 * lookup refuses them from then on.
 */
@Injectable()
export class TeamsService {
  constructor(
    @Inject(DB) private readonly db: Kysely<Database>,
    @Inject(REDIS) private readonly redis: RedisClient,
    @Inject(REDIS_KEYS) private readonly keys: RedisKeys,
    @Inject(CATALOG) private readonly catalog: Catalog,
    private readonly invalidations: KeyInvalidations,
    private readonly audit: AuditTrail,
  ) {}

  /** A page of every team in name order (any case), then id. */
  async list(q: ListTeamsInput): Promise<Page<TeamView>> {
    const rows = await pageTeams(this.db, { search: q.q, after: q.cursor, limit: q.limit + 1 });
    return pageOf(rows, q.limit, (t) => [t.name.toLowerCase(), t.id], teamView);
  }

  async get(id: string): Promise<TeamView> {
    const row = await findTeam(this.db, id);
    if (!row) throw notFound('Team');
    return teamView(row);
  }

  /** A page of a team's members in email order. */
  async members(id: string, q: ListMembersInput): Promise<Page<MemberView>> {
    await this.get(id);
    return membersPage(this.db, id, q);
  }

  async grants(id: string): Promise<TeamGrantView[]> {
    await this.get(id);
    return (await listTeamGrants(this.db, id)).map((g) => ({
      credits: creditsOf(g.amount_nanos),
      note: g.note,
      grantedBy: g.granted_by,
      createdAt: g.created_at.toISOString(),
    }));
  }

  async create(input: CreateTeamInput, createdBy: string | null, by: AuditBy): Promise<TeamView> {
    this.checkGroups(input.groups);
    const id = await this.db
      .transaction()
      .execute(async (trx) => {
        const team = await insertTeam(trx, { name: input.name, groups: input.groups, createdBy });
        const entry = await this.audit.append(trx, by, {
          action: 'team.create',
          target: { type: 'team', id: team.id },
          after: auditedTeam(team),
        });
        return { id: team.id, entry };
      })
      .catch((err: unknown) => {
        if (pgCode(err) === '23505')
          throw new ApiError('conflict', `A team named "${input.name}" exists already.`);
        throw err;
      });
    this.audit.emit(id.entry);
    return this.get(id.id);
  }

  async update(
    id: string,
    input: UpdateTeamInput,
    by: AuditBy,
  ): Promise<{ team: TeamView; invalidation: Announcement }> {
    if (input.groups) this.checkGroups(input.groups);
    const { result, invalidation } = await this.invalidations
      .change(async (trx) => {
        const before = await lockTeam(trx, id);
        if (!before) return { result: null, keyHashes: [] };
        const after = await updateTeam(trx, id, { name: input.name, groups: input.groups });
        const entry = await this.audit.append(trx, by, {
          action: 'team.update',
          target: { type: 'team', id },
          before: auditedTeam(before),
          after: auditedTeam(after!),
        });
        // The team's keys carry its groups' verdict in their cached records: drop them everywhere.
        const groupsChanged = input.groups !== undefined && String(before.groups) !== String(input.groups);
        return { result: entry, keyHashes: groupsChanged ? await keyHashesOfTeam(trx, id) : [] };
      })
      .catch((err: unknown) => {
        if (pgCode(err) === '23505')
          throw new ApiError('conflict', `A team named "${input.name}" exists already.`);
        throw err;
      });
    if (!result) throw notFound('Team');
    this.audit.emit(result);
    return { team: await this.get(id), invalidation };
  }

  /** Refused (409) while the team has keys, revoked or not: its charges must keep saying who paid. */
  async remove(id: string, by: AuditBy): Promise<void> {
    const entry = await this.db
      .transaction()
      .execute(async (trx) => {
        const row = await deleteTeam(trx, id);
        if (!row) return null;
        return this.audit.append(trx, by, {
          action: 'team.delete',
          target: { type: 'team', id },
          before: auditedTeam(row),
        });
      })
      .catch((err: unknown) => {
        if (pgCode(err) === '23503')
          throw new ApiError(
            'conflict',
            'The team has keys or charges; it cannot be deleted (remove its members instead).',
          );
        throw err;
      });
    if (!entry) throw notFound('Team');
    this.audit.emit(entry);
  }

  /** Adds a member, or changes an existing member's team admin flag (recorded as a grant or revoke). */
  async addMember(id: string, input: AddMemberInput, by: AuditBy): Promise<Page<MemberView>> {
    await this.get(id);
    if (!(await findConsoleUser(this.db, input.userId))) throw notFound('User');
    const entry = await this.db
      .transaction()
      .execute((trx) => this.putMemberIn(trx, id, input.userId, input.admin, by));
    if (entry) this.audit.emit(entry);
    return this.members(id, FIRST_MEMBERS);
  }

  /**
   * In the caller's transaction, under the team's lock: makes the user a member with this team
   * admin flag, recorded as team.member.add, team.admin.grant or team.admin.revoke (`reason` says
   * why when it is not an admin's own act). Null when it already was so: nothing changed or recorded.
   * The caller emits the entry once committed. Also how an SSO sign-in applies a teams claim.
   */
  async putMemberIn(
    trx: Kysely<Database>,
    id: string,
    userId: string,
    admin: boolean,
    by: AuditBy,
    reason?: string,
  ): Promise<AuditEventRow | null> {
    await lockTeam(trx, id);
    const before = await findTeamMember(trx, id, userId);
    if (before && before.is_admin === admin) return null;
    await upsertTeamMember(trx, { teamId: id, userId, isAdmin: admin });
    return this.audit.append(trx, by, {
      action: before ? (admin ? 'team.admin.grant' : 'team.admin.revoke') : 'team.member.add',
      target: { type: 'team', id },
      before: before ? { userId, admin: before.is_admin } : undefined,
      after: { userId, admin },
      ...(reason !== undefined ? { reason } : {}),
    });
  }

  async setAdmin(id: string, userId: string, admin: boolean, by: AuditBy): Promise<Page<MemberView>> {
    const entry = await this.db.transaction().execute(async (trx) => {
      if (!(await lockTeam(trx, id))) throw notFound('Team');
      const before = await findTeamMember(trx, id, userId);
      if (!before) throw notFound('Member');
      if (before.is_admin === admin) return null;
      await upsertTeamMember(trx, { teamId: id, userId, isAdmin: admin });
      return this.audit.append(trx, by, {
        action: admin ? 'team.admin.grant' : 'team.admin.revoke',
        target: { type: 'team', id },
        before: { userId, admin: before.is_admin },
        after: { userId, admin },
      });
    });
    if (entry) this.audit.emit(entry);
    return this.members(id, FIRST_MEMBERS);
  }

  /** Removes a member; its keys of the team stop working at once (the edges drop them). */
  async removeMember(id: string, userId: string, by: AuditBy): Promise<{ invalidation: Announcement }> {
    const { result, invalidation } = await this.invalidations.change((trx) =>
      this.removeMemberIn(trx, id, userId, by),
    );
    if (!result) throw notFound('Member');
    this.audit.emit(result);
    return { invalidation };
  }

  /**
   * In the caller's key change (KeyInvalidations.change), under the team's lock: removes the
   * member, recorded as team.member.remove (`reason` says why when it is not an admin's own act),
   * and returns the hashes of its keys of the team for the edges to drop. Null (and no hashes)
   * when the team or the membership is not there. The caller emits the entry once committed.
   * Also how an SSO sign-in applies a teams claim that no longer names a team.
   */
  async removeMemberIn(
    trx: Kysely<Database>,
    id: string,
    userId: string,
    by: AuditBy,
    reason?: string,
  ): Promise<{ result: AuditEventRow | null; keyHashes: string[] }> {
    if (!(await lockTeam(trx, id))) return { result: null, keyHashes: [] };
    const removed = await deleteTeamMember(trx, id, userId);
    if (!removed) return { result: null, keyHashes: [] };
    const keyHashes = await keyHashesOfTeamMember(trx, id, userId);
    const entry = await this.audit.append(trx, by, {
      action: 'team.member.remove',
      target: { type: 'team', id },
      before: { userId, admin: removed.is_admin },
      after: { teamKeysEnded: keyHashes.length },
      ...(reason !== undefined ? { reason } : {}),
    });
    return { result: entry, keyHashes };
  }

  /** Credits to the team's account (negative takes back); the new durable balance. */
  async grant(
    id: string,
    credits: number,
    note: string,
    grantedBy: string | null,
    by: AuditBy,
  ): Promise<number> {
    await this.get(id);
    const balance = await grantTeamCredits(
      { db: this.db, redis: this.redis, keys: this.keys },
      { teamId: id, nanos: nanosOf(credits), grantedBy, note },
    );
    // grantTeamCredits commits its own transaction (and updates Redis): recorded right after it.
    await this.audit.record(by, {
      action: 'team.credits.grant',
      target: { type: 'team', id },
      after: { balanceCredits: creditsOf(balance), grantedCredits: credits, note },
    });
    return creditsOf(balance);
  }

  private checkGroups(groups: readonly string[]): void {
    const unknown = groups.find((g) => !this.catalog.groups.has(g));
    if (unknown !== undefined) throw new ApiError('invalid_request', `Unknown group "${unknown}".`);
  }
}
