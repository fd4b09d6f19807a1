import { type Kysely } from 'kysely';
import { type Database, listTeamMembers } from '#libs/db';
import { type Page, pageOf } from '../http/page.js';
import { type ListMembersInput } from './teams.schema.js';
import { type MemberView, memberView } from './team-view.js';

/** A page of a team's members in email order: the admins' and the team admins' views alike. */
export async function membersPage(
  db: Kysely<Database>,
  teamId: string,
  q: ListMembersInput,
): Promise<Page<MemberView>> {
  const rows = await listTeamMembers(db, teamId, { search: q.q, afterEmail: q.cursor, limit: q.limit + 1 });
  return pageOf(rows, q.limit, (m) => [m.email], memberView);
}
