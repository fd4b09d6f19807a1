import { type ColumnType, type Generated, type Insertable, type Selectable } from 'kysely';
import { type CreatedAt, type Int8 } from './column-types.js';

/** A team: a billing account of its own for its members' team keys (docs/teams.md). */
export interface TeamsTable {
  id: Generated<string>;
  name: string;
  /** The config groups the team's keys may use (a key's group must be one of them). */
  groups: ColumnType<string[], string[] | undefined, string[]>;
  created_by: string | null;
  created_at: CreatedAt;
}

/** A member of a team; `is_admin`: a team admin (manages the members' team keys, sees team usage). */
export interface TeamMembersTable {
  team_id: string;
  user_id: string;
  is_admin: ColumnType<boolean, boolean | undefined, boolean>;
  added_at: CreatedAt;
}

/** One row per team: its durable balance (Postgres is the truth; Redis holds the edges' copy). */
export interface TeamBalancesTable {
  team_id: string;
  balance_nanos: Int8;
  spent_nanos: ColumnType<string, string | number | bigint | undefined, string | number | bigint>;
  updated_at: ColumnType<Date, Date | string | undefined, Date | string>;
}

/** The credit side of a team's ledger: balance = sum(team_grants) - sum(charges of the team). */
export interface TeamGrantsTable {
  id: Generated<string>;
  team_id: string;
  amount_nanos: Int8;
  granted_by: string | null;
  note: string;
  created_at: CreatedAt;
}

export type Team = Selectable<TeamsTable>;
export type NewTeam = Insertable<TeamsTable>;
export type TeamMember = Selectable<TeamMembersTable>;
export type TeamGrant = Selectable<TeamGrantsTable>;
