import { type Kysely } from 'kysely';
import { type Database, findUserByEmail, insertUserWithGrant, type User, type UserRole } from '#libs/db';
import { type MappedIdentity } from './oidc-claims.js';

/**
 * The user of an SSO sign-in: created at the first one (no password: the provider vouches for
 * them), and at every later one given the role and groups the provider's claims map to, when the
 * provider manages them. A concurrent first sign-in loses the insert race and updates the winner's row.
 */
export async function upsertOidcUser(
  db: Kysely<Database>,
  identity: MappedIdentity,
  defaultRole: UserRole,
  grantNanos: bigint,
): Promise<{ user: User; created: boolean }> {
  const existing = await findUserByEmail(db, identity.email);
  if (!existing) {
    const inserted = await insertUserWithGrant(
      db,
      { email: identity.email, role: identity.role ?? defaultRole, groups: identity.groups ?? null },
      grantNanos,
    );
    if (inserted) return { user: inserted, created: true };
  }
  const changes = {
    ...(identity.role !== undefined ? { role: identity.role } : {}),
    ...(identity.groups !== undefined ? { groups: identity.groups } : {}),
  };
  const query = db.updateTable('users').where('email', '=', identity.email).returningAll();
  const user =
    Object.keys(changes).length > 0
      ? await query.set(changes).executeTakeFirst()
      : await findUserByEmail(db, identity.email);
  if (!user) throw new Error(`user ${identity.email} vanished during its sign-in`);
  return { user, created: false };
}
