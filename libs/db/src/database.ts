import { type AdminTokensTable } from './admin-tokens.table.js';
import { type ApiKeysTable } from './api-keys.table.js';
import { type AuditEventsTable } from './audit-events.table.js';
import { type BudgetsTable } from './budgets.table.js';
import { type ChargeDailyTotalsTable } from './charge-daily-totals.table.js';
import { type ChargesTable } from './charges.table.js';
import { type ConfigSecretsTable, type ConfigVersionsTable } from './config-store.table.js';
import { type KeyInvalidationsTable } from './key-invalidations.table.js';
import { type QuotaBalancesTable } from './quota-balances.table.js';
import { type QuotaGrantsTable } from './quota-grants.table.js';
import { type RequestLogsTable } from './request-logs.table.js';
import {
  type TeamBalancesTable,
  type TeamGrantsTable,
  type TeamMembersTable,
  type TeamsTable,
} from './teams.table.js';
import { type UsageHourlyTable } from './usage-hourly.table.js';
import { type UsersTable } from './users.table.js';

/** The kysely schema: table name -> row type. */
export interface Database {
  users: UsersTable;
  api_keys: ApiKeysTable;
  request_logs: RequestLogsTable;
  quota_balances: QuotaBalancesTable;
  charges: ChargesTable;
  quota_grants: QuotaGrantsTable;
  key_invalidations: KeyInvalidationsTable;
  budgets: BudgetsTable;
  config_versions: ConfigVersionsTable;
  config_secrets: ConfigSecretsTable;
  audit_events: AuditEventsTable;
  admin_tokens: AdminTokensTable;
  teams: TeamsTable;
  team_members: TeamMembersTable;
  team_balances: TeamBalancesTable;
  team_grants: TeamGrantsTable;
  usage_hourly: UsageHourlyTable;
  charge_daily_totals: ChargeDailyTotalsTable;
}
