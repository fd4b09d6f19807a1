import { type Kysely } from 'kysely';
import { type KeyRecord } from '#libs/auth';
import { budgetsForKey, type Database, findApiKeyByHash } from '#libs/db';
import { budgetOfRow } from '#libs/quota';
import { type KeyLookup } from './key-resolver.service.js';

/**
 * The Postgres end of key resolution, with the key's budgets (its team's for a team key). A
 * disabled owner makes the key unusable, and so does a team key whose owner left the team or
 * whose group the team no longer allows.
 */
export function keyLookupFromDb(db: Kysely<Database>): KeyLookup {
  return async (hash: string): Promise<KeyRecord | null> => {
    const row = await findApiKeyByHash(db, hash);
    if (!row) return null;
    const budgets = await budgetsForKey(db, row.id, row.user_id, row.team_id);
    const usable = row.status === 'active' && row.user_status === 'active' && row.team_allows;
    return {
      id: row.id,
      userId: row.user_id,
      group: row.group_name,
      status: usable ? 'active' : 'revoked',
      expiresAt: row.expires_at ? row.expires_at.toISOString() : null,
      spendLimitNanos: row.spend_limit_nanos,
      rpmLimit: row.rpm_limit,
      tpmLimit: row.tpm_limit,
      budgets: budgets.map(budgetOfRow),
      teamId: row.team_id,
    };
  };
}
