import { type TeamMemberView, type TeamSummary } from '#libs/db';
import { creditsOf } from '../credits.js';

/** A team as the API shows it. */
export interface TeamView {
  readonly id: string;
  readonly name: string;
  /** The config groups the team's keys may use. */
  readonly groups: string[];
  readonly memberCount: number;
  /** The durable balance (Postgres; the edges' copy may be ahead by charges in flight). */
  readonly balanceCredits: number;
  readonly spentCredits: number;
  readonly createdAt: string;
}

export interface MemberView {
  readonly userId: string;
  readonly email: string;
  readonly admin: boolean;
  readonly addedAt: string;
}

export function teamView(row: TeamSummary): TeamView {
  return {
    id: row.id,
    name: row.name,
    groups: row.groups,
    memberCount: row.member_count,
    balanceCredits: creditsOf(row.balance_nanos),
    spentCredits: creditsOf(row.spent_nanos),
    createdAt: row.created_at.toISOString(),
  };
}

export function memberView(row: TeamMemberView): MemberView {
  return { userId: row.user_id, email: row.email, admin: row.is_admin, addedAt: row.added_at.toISOString() };
}

/** What the audit trail keeps of a team. */
export const auditedTeam = (t: { name: string; groups: string[] }): Record<string, unknown> => ({
  name: t.name,
  groups: t.groups,
});
