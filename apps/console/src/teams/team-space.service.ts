import { Inject, Injectable } from '@nestjs/common';
import { type Kysely } from 'kysely';
import {
  type Database,
  findConsoleKey,
  findTeam,
  findTeamMember,
  listTeams,
  type TeamSummary,
  teamsOfUser,
} from '#libs/db';
import { type AuditBy } from '../audit/audit-context.js';
import { AuditTrail } from '../audit/audit-trail.service.js';
import { ApiError, notFound } from '../http/api-error.js';
import { type Page } from '../http/page.js';
import { type Announcement } from '../keys/key-invalidations.service.js';
import { type ListKeysInput } from '../keys/keys.schema.js';
import { KeysService, ownedKeyView } from '../keys/keys.service.js';
import { type KeyView } from '../keys/key-view.js';
import { type LogQueryInput } from '../logs/log-query.schema.js';
import { type LogPage, LogsService } from '../logs/logs.service.js';
import { type SessionUser } from '../session/principal.js';
import { type UsageReport, UsageService } from '../usage/usage.service.js';
import { DB } from '../tokens.js';
import { type CreateTeamKeyInput, type ListMembersInput } from './teams.schema.js';
import { membersPage } from './team-members.js';
import { type MemberView, type TeamView, teamView } from './team-view.js';

/** A team as one of its members sees it. */
export interface MyTeamView extends TeamView {
  /** Whether the caller is a team admin of it (or a console admin). */
  readonly admin: boolean;
}

export type TeamKeyView = KeyView & { readonly userId: string; readonly userEmail: string };

/** What the caller is to a team it reaches: a member, or one who manages it. */
interface Standing {
  readonly team: TeamSummary;
  readonly admin: boolean;
}

/**
 * A team seen by its members (docs/teams.md): members see the team, create and revoke their own
 * team keys, and see their own usage and logs in it; team admins do so for every member. A
 * console admin is a team admin of every team. Anyone else reaching a team (not a member, a member
 * acting on another member, a key of another team) is refused 403 and the refusal recorded in the
 * audit trail (`access.refused`, target the team), never a 500. A team id that is no team is 404,
 * as any unknown id (team ids are random UUIDs: existence tells nothing worth hiding).
 */
@Injectable()
export class TeamSpaceService {
  constructor(
    @Inject(DB) private readonly db: Kysely<Database>,
    private readonly keys: KeysService,
    private readonly usage: UsageService,
    private readonly logs: LogsService,
    private readonly audit: AuditTrail,
  ) {}

  async mine(user: SessionUser): Promise<MyTeamView[]> {
    const memberships = await teamsOfUser(this.db, user.id);
    const admin = new Map(memberships.map((m) => [m.team_id, m.is_admin || user.role === 'admin']));
    const teams = await listTeams(this.db, [...admin.keys()]);
    return teams.map((t) => ({ ...teamView(t), admin: admin.get(t.id) ?? false }));
  }

  async team(user: SessionUser, teamId: string, by: AuditBy): Promise<MyTeamView> {
    const s = await this.standing(user, teamId, 'member', by, 'view the team');
    return { ...teamView(s.team), admin: s.admin };
  }

  async members(
    user: SessionUser,
    teamId: string,
    q: ListMembersInput,
    by: AuditBy,
  ): Promise<Page<MemberView>> {
    await this.standing(user, teamId, 'admin', by, "list the team's members");
    return membersPage(this.db, teamId, q);
  }

  /** A page of the team's keys: the caller's own, or a team admin's: every member's. */
  async listKeys(
    user: SessionUser,
    teamId: string,
    q: ListKeysInput,
    by: AuditBy,
  ): Promise<Page<TeamKeyView>> {
    const s = await this.standing(user, teamId, 'member', by, "list the team's keys");
    return this.keys.page({ ...q, teamId, userId: s.admin ? undefined : user.id }, ownedKeyView);
  }

  /** A team key for the caller, or (team admins) for a member of the team. */
  async createKey(
    user: SessionUser,
    teamId: string,
    input: CreateTeamKeyInput,
    by: AuditBy,
  ): Promise<{ key: KeyView; secret: string }> {
    const ownerId = input.userId ?? user.id;
    const forOther = ownerId !== user.id;
    const s = await this.standing(user, teamId, forOther ? 'admin' : 'member', by, 'create a team key');
    if (forOther && !(await findTeamMember(this.db, teamId, ownerId)))
      await this.refuse(by, teamId, `create a key for a user who is not a member of the team (${ownerId})`);
    if (!forOther && !(await findTeamMember(this.db, teamId, user.id)))
      // A console admin may manage any team, but a key must belong to a member: it is theirs.
      await this.refuse(by, teamId, 'create a team key for a user who is not a member of the team');
    const { userId: _owner, ...key } = input;
    return this.keys.createForTeam(ownerId, s.team, key, by);
  }

  /** Revokes a key of the team: the caller's own, or (team admins) any member's. */
  async revokeKey(
    user: SessionUser,
    teamId: string,
    keyId: string,
    by: AuditBy,
  ): Promise<{ key: KeyView; invalidation: Announcement }> {
    const s = await this.standing(user, teamId, 'member', by, 'revoke a team key');
    const key = await findConsoleKey(this.db, keyId);
    if (!key) throw notFound('Key');
    if (key.team_id !== teamId) await this.refuse(by, teamId, `revoke key ${keyId}, which is not the team's`);
    if (!s.admin && key.user_id !== user.id)
      await this.refuse(by, teamId, `revoke key ${keyId} of another member (team admins only)`);
    return this.keys.revoke(keyId, by);
  }

  async usageReport(
    user: SessionUser,
    teamId: string,
    from: Date,
    to: Date,
    by: AuditBy,
  ): Promise<UsageReport> {
    const s = await this.standing(user, teamId, 'member', by, "read the team's usage");
    return this.usage.teamReport(teamId, from, to, s.admin ? undefined : user.id);
  }

  async logPage(user: SessionUser, teamId: string, q: LogQueryInput, by: AuditBy): Promise<LogPage> {
    const s = await this.standing(user, teamId, 'member', by, "read the team's logs");
    return this.logs.page(q, s.admin ? q.userId : user.id, true, teamId);
  }

  /**
   * What the caller is to the team, or a recorded 403: not a member, or not a team admin where
   * `need` is 'admin'. 404 for no such team.
   */
  private async standing(
    user: SessionUser,
    teamId: string,
    need: 'member' | 'admin',
    by: AuditBy,
    what: string,
  ): Promise<Standing> {
    const team = await findTeam(this.db, teamId);
    if (!team) throw notFound('Team');
    if (user.role === 'admin') return { team, admin: true };
    const member = await findTeamMember(this.db, teamId, user.id);
    if (!member) return this.refuse(by, teamId, `${what}: not a member of the team`);
    if (need === 'admin' && !member.is_admin) return this.refuse(by, teamId, `${what}: not a team admin`);
    return { team, admin: member.is_admin };
  }

  private async refuse(by: AuditBy, teamId: string, reason: string): Promise<never> {
    await this.audit.refused(by, { action: 'access.refused', target: { type: 'team', id: teamId }, reason });
    throw new ApiError('forbidden', `Not allowed to ${reason}.`);
  }
}
