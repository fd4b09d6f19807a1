import { type Kysely, sql } from 'kysely';
import { type Database } from './database.js';
import { type QuotaGrant } from './quota-grants.table.js';

export interface GrantInput {
  readonly userId: string;
  /** Nanocredits to add; negative takes credits back. Zero is refused by the table. */
  readonly amountNanos: bigint | number | string;
  readonly grantedBy: string | null;
  readonly note: string;
}

/**
 * Records a grant in the ledger and adds it to the durable balance (created if missing), in one
 * statement. Returns the new balance (int8 as string). Run it in the caller's transaction when
 * something else must commit with it; the balance row stays locked until that transaction ends.
 */
export async function insertGrant(db: Kysely<Database>, grant: GrantInput): Promise<string> {
  const amount = String(grant.amountNanos);
  const row = await db
    .with('grant', (qb) =>
      qb
        .insertInto('quota_grants')
        .values({
          user_id: grant.userId,
          amount_nanos: amount,
          granted_by: grant.grantedBy,
          note: grant.note,
        })
        .returning(['user_id', 'amount_nanos']),
    )
    .insertInto('quota_balances')
    .columns(['user_id', 'balance_nanos'])
    .expression((eb) => eb.selectFrom('grant').select(['grant.user_id', 'grant.amount_nanos']))
    .onConflict((oc) =>
      oc.column('user_id').doUpdateSet({
        balance_nanos: sql`quota_balances.balance_nanos + excluded.balance_nanos`,
        updated_at: sql`now()`,
      }),
    )
    .returning('balance_nanos')
    .executeTakeFirstOrThrow();
  return row.balance_nanos;
}

/** A user's grants, newest first (the console's credit history). */
export async function listGrants(db: Kysely<Database>, userId: string, limit = 100): Promise<QuotaGrant[]> {
  return db
    .selectFrom('quota_grants')
    .selectAll()
    .where('user_id', '=', userId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
}
