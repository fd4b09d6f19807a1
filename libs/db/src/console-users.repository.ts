import { type Kysely, sql } from 'kysely';
import { type Database } from './database.js';
import { bytewise, startsWith } from './keyset.js';
import { insertUserWithGrant, normalizeEmail } from './users.repository.js';
import { type User, type UserRole, type UserStatus } from './users.table.js';

/** A user as the console lists it: the row (minus the password hash) and the current balance. */
export interface ConsoleUserRow {
  readonly id: string;
  readonly email: string;
  readonly role: UserRole;
  readonly status: UserStatus;
  readonly groups: string[] | null;
  readonly created_at: Date;
  /** Nanocredits (int8 as string); '0' when the user has no balance row. */
  readonly balance_nanos: string;
}

export interface NewConsoleUser {
  readonly email: string;
  readonly passwordHash: string;
  readonly role: UserRole;
  readonly groups: string[] | null;
  readonly grantNanos: bigint;
}

export interface ConsoleUserChanges {
  readonly status?: UserStatus;
  readonly role?: UserRole;
  readonly groups?: string[] | null;
}

/** Serializes first-admin creation across console replicas (an arbitrary, fixed advisory lock id). */
const FIRST_ADMIN_LOCK = 7_140_002;

export async function findUserById(db: Kysely<Database>, id: string): Promise<User | undefined> {
  return db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Users as the console shows them: with their balance (0 before their first grant). */
function consoleUsers(db: Kysely<Database>) {
  return db
    .selectFrom('users')
    .leftJoin('quota_balances', 'quota_balances.user_id', 'users.id')
    .select([
      'users.id',
      'users.email',
      'users.role',
      'users.status',
      'users.groups',
      'users.created_at',
      sql<string>`coalesce(quota_balances.balance_nanos, 0)::text`.as('balance_nanos'),
    ]);
}

/** What the console's user list asks for: filters, where the page starts, how many rows. */
export interface ConsoleUserQuery {
  /** The start of the email, lowercase (emails are stored lowercased). */
  readonly search?: string | undefined;
  readonly role?: UserRole | undefined;
  readonly status?: UserStatus | undefined;
  /** The email of the previous page's last user (emails are unique: no tiebreaker needed). */
  readonly afterEmail?: string | undefined;
  readonly limit: number;
}

/**
 * One page of users in email order (byte order). The index on `email collate "C"` serves the
 * order, the cursor and the prefix search at once; (role, email) and (status, email) serve the
 * filters (migration 0022), so no page sorts or reads the whole table.
 */
export async function listConsoleUsers(db: Kysely<Database>, q: ConsoleUserQuery): Promise<ConsoleUserRow[]> {
  const email = bytewise('users.email');
  let query = consoleUsers(db);
  if (q.search) query = query.where(email, 'like', startsWith(q.search));
  if (q.role !== undefined) query = query.where('users.role', '=', q.role);
  if (q.status !== undefined) query = query.where('users.status', '=', q.status);
  if (q.afterEmail !== undefined) query = query.where(email, '>', q.afterEmail);
  return query.orderBy(email).limit(q.limit).execute();
}

export async function findConsoleUser(db: Kysely<Database>, id: string): Promise<ConsoleUserRow | undefined> {
  return consoleUsers(db).where('users.id', '=', id).executeTakeFirst();
}

/**
 * Creates a user with a password and a balance row in one statement. Returns undefined when the
 * email is taken (nothing is changed then).
 */
export async function insertConsoleUser(
  db: Kysely<Database>,
  user: NewConsoleUser,
): Promise<User | undefined> {
  return insertUserWithGrant(
    db,
    {
      email: normalizeEmail(user.email),
      password_hash: user.passwordHash,
      role: user.role,
      groups: user.groups,
    },
    user.grantNanos,
  );
}

/** Applies the given changes; undefined when no such user. */
export async function updateConsoleUser(
  db: Kysely<Database>,
  id: string,
  changes: ConsoleUserChanges,
): Promise<User | undefined> {
  if (Object.keys(changes).length === 0) return findUserById(db, id);
  return db.updateTable('users').set(changes).where('id', '=', id).returningAll().executeTakeFirst();
}

export async function setPasswordHash(db: Kysely<Database>, id: string, passwordHash: string): Promise<void> {
  await db.updateTable('users').set({ password_hash: passwordHash }).where('id', '=', id).execute();
}

export async function adminExists(db: Kysely<Database>): Promise<boolean> {
  const row = await db
    .selectFrom('users')
    .select(sql<number>`1`.as('one'))
    .where('role', '=', 'admin')
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * Creates the first admin (or makes an existing user with that email the admin, with this
 * password), unless an admin exists already: then returns undefined. An advisory lock makes the
 * check and the write one step across concurrent setups.
 */
export async function createFirstAdmin(
  db: Kysely<Database>,
  admin: Omit<NewConsoleUser, 'role' | 'groups'>,
): Promise<User | undefined> {
  return db.transaction().execute(async (trx) => {
    await sql`select pg_advisory_xact_lock(${FIRST_ADMIN_LOCK})`.execute(trx);
    if (await adminExists(trx)) return undefined;
    const email = normalizeEmail(admin.email);
    const created = await insertConsoleUser(trx, { ...admin, role: 'admin', groups: null });
    if (created) return created;
    return trx
      .updateTable('users')
      .set({ role: 'admin', status: 'active', password_hash: admin.passwordHash })
      .where('email', '=', email)
      .returningAll()
      .executeTakeFirst();
  });
}
