import { type Kysely, sql } from 'kysely';
import { type Database } from './database.js';
import { type QuotaBalance } from './quota-balances.table.js';
import { type NewUser, type User } from './users.table.js';

/** The stored form of an email: trimmed and lowercased (the unique index is on it). */
export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

export async function findUserByEmail(db: Kysely<Database>, email: string): Promise<User | undefined> {
  return db.selectFrom('users').selectAll().where('email', '=', normalizeEmail(email)).executeTakeFirst();
}

/**
 * Inserts a user, its balance row and, when non-zero, its first grant in one statement, so a user
 * never exists without a balance and a balance always equals grants minus charges. Undefined when
 * the email is taken (nothing is changed then). `user.email` must already be normalized.
 */
export async function insertUserWithGrant(
  db: Kysely<Database>,
  user: NewUser,
  grantNanos: bigint | number | string,
): Promise<User | undefined> {
  const grant = String(grantNanos);
  return db
    .with('new_user', (qb) =>
      qb
        .insertInto('users')
        .values(user)
        .onConflict((oc) => oc.column('email').doNothing())
        .returningAll(),
    )
    .with('new_balance', (qb) =>
      qb
        .insertInto('quota_balances')
        .columns(['user_id', 'balance_nanos'])
        .expression((eb) =>
          eb
            .selectFrom('new_user')
            .select((s) => ['new_user.id', s.val(grant).$castTo<string>().as('grant')]),
        ),
    )
    .with('new_grant', (qb) =>
      qb
        .insertInto('quota_grants')
        .columns(['user_id', 'amount_nanos', 'note'])
        .expression((eb) =>
          eb
            .selectFrom('new_user')
            .select((s) => [
              'new_user.id',
              s.val(grant).$castTo<string>().as('amount'),
              s.val('default grant').as('note'),
            ])
            .where(sql<boolean>`${grant}::bigint <> 0`),
        ),
    )
    .selectFrom('new_user')
    .selectAll()
    .executeTakeFirst();
}

/**
 * Returns the user with this email, creating it (with a quota balance of `initialGrantNanos`)
 * when missing. One statement creates both rows, so a user never exists without a balance;
 * concurrent callers race safely (`on conflict do nothing`, then read the winner's row).
 */
export async function findOrCreateUserByEmail(
  db: Kysely<Database>,
  email: string,
  initialGrantNanos: bigint | number | string,
): Promise<{ user: User; created: boolean }> {
  const normalized = normalizeEmail(email);
  const inserted = await insertUserWithGrant(db, { email: normalized }, initialGrantNanos);
  if (inserted) return { user: inserted, created: true };
  const existing = await findUserByEmail(db, normalized);
  if (!existing) throw new Error(`user ${normalized} vanished between insert and select`);
  return { user: existing, created: false };
}

export async function getQuotaBalance(
  db: Kysely<Database>,
  userId: string,
): Promise<QuotaBalance | undefined> {
  return db.selectFrom('quota_balances').selectAll().where('user_id', '=', userId).executeTakeFirst();
}
