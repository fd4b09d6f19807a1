import { Injectable, Logger } from '@nestjs/common';
import { type Kysely } from 'kysely';
import { type AuditEventRow, type Database, teamsOfUser, type User } from '#libs/db';
import { type AuditBy } from '../../audit/audit-context.js';
import { AuditTrail } from '../../audit/audit-trail.service.js';
import { type Announcement, KeyInvalidations } from '../../keys/key-invalidations.service.js';
import { TeamsService } from '../../teams/teams.service.js';
import { type SignInOrigin } from '../sign-in-events.js';
import { type TeamMembershipClaim } from './oidc-settings.js';
import { planMemberships } from './oidc-team-plan.js';

/**
 * Locks every team a sign-in may touch (those claimed by name, those held by id) in one statement
 * in id order: two sign-ins of different users sharing teams cannot lock them in opposite orders.
 * A claimed name no team has is simply not in the answer.
 */
async function lockTeams(
  trx: Kysely<Database>,
  names: readonly string[],
  ids: readonly string[],
): Promise<Array<{ id: string; name: string }>> {
  if (names.length === 0 && ids.length === 0) return [];
  return trx
    .selectFrom('teams')
    .select(['id', 'name'])
    .where((eb) =>
      eb.or([
        ...(names.length > 0 ? [eb('name', 'in', [...names])] : []),
        ...(ids.length > 0 ? [eb('id', 'in', [...ids])] : []),
      ]),
    )
    .orderBy('id')
    .forUpdate()
    .execute();
}

/** The audit trail's note on a membership change a sign-in made: the user is the actor, the provider the cause. */
export const SIGN_IN_TEAMS_REASON =
  "Single sign-on: the identity provider's teams claim at the user's sign-in.";

export interface TeamsSynced {
  readonly added: number;
  readonly removed: number;
  /** Memberships kept whose team admin flag changed. */
  readonly adminChanged: number;
  /** Whether the edges were told of the removed members' team keys (`pending`: the relay retries). */
  readonly invalidation: Announcement;
}

/**
 * Makes a user's team memberships exactly what the provider's teams claim maps to, at sign-in
 * (console.oidc.teams_claim; docs/teams.md). Every change goes through the teams service's own
 * membership steps, so a sign-in adds, promotes and removes exactly as an admin does: each change
 * recorded in the audit trail, and a removal ending the member's team keys on every edge. All of
 * a sign-in's changes are one transaction.
 */
@Injectable()
export class OidcTeams {
  private readonly logger = new Logger('SignIn');

  constructor(
    private readonly teams: TeamsService,
    private readonly invalidations: KeyInvalidations,
    private readonly audit: AuditTrail,
  ) {}

  async sync(
    user: User,
    claimed: readonly TeamMembershipClaim[],
    origin: SignInOrigin,
  ): Promise<TeamsSynced> {
    const by: AuditBy = {
      actor: { kind: 'user', id: user.id, email: user.email },
      origin: { ip: origin.ip, userAgent: origin.userAgent },
    };
    const { result, invalidation } = await this.invalidations.change(async (trx) => {
      // Two sign-ins of one user at once: the second plans from what the first left. NO KEY
      // UPDATE, not UPDATE: a membership insert's foreign key check (KEY SHARE) must not wait on it.
      await trx.selectFrom('users').select('id').where('id', '=', user.id).forNoKeyUpdate().execute();
      const before = await teamsOfUser(trx, user.id);
      const locked = await lockTeams(
        trx,
        claimed.map((c) => c.team),
        before.map((t) => t.team_id),
      );
      // Read again under the locks, so the plan starts from what an admin may have changed
      // meanwhile. (A team an admin added the user to between the two reads is locked later, by
      // its removal: outside the id order, so at worst Postgres breaks a deadlock by failing this
      // sign-in, which then changes nothing.)
      const current = (await teamsOfUser(trx, user.id)).map((t) => ({
        teamId: t.team_id,
        admin: t.is_admin,
      }));
      const plan = planMemberships(current, claimed, new Map(locked.map((t) => [t.name, t.id])));
      const entries: AuditEventRow[] = [];
      const keyHashes: string[] = [];
      for (const teamId of plan.remove) {
        const removed = await this.teams.removeMemberIn(trx, teamId, user.id, by, SIGN_IN_TEAMS_REASON);
        if (removed.result) entries.push(removed.result);
        keyHashes.push(...removed.keyHashes);
      }
      for (const m of plan.put) {
        const entry = await this.teams.putMemberIn(trx, m.teamId, user.id, m.admin, by, SIGN_IN_TEAMS_REASON);
        if (entry) entries.push(entry);
      }
      const held = new Set(current.map((m) => m.teamId));
      return {
        result: {
          entries,
          added: plan.put.filter((m) => !held.has(m.teamId)).length,
          adminChanged: plan.put.filter((m) => held.has(m.teamId)).length,
          removed: plan.remove.length,
        },
        keyHashes,
      };
    });
    for (const entry of result.entries) this.audit.emit(entry);
    if (result.entries.length > 0)
      this.logger.log(
        `teams of ${user.email} from the provider's claim: ${result.added} added, ${result.removed} removed, ${result.adminChanged} team admin changes${invalidation === 'pending' ? ' (ended team keys not yet announced to the edges; retrying)' : ''}`,
      );
    return { added: result.added, removed: result.removed, adminChanged: result.adminChanged, invalidation };
  }
}
