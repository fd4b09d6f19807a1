import { type Catalog } from '#libs/config';
import { type UserRole } from '#libs/db';

export interface GroupView {
  readonly name: string;
  readonly models: string[];
}

/**
 * The groups a user may give their keys: every group for admins, else the user's own list (null =
 * the console's default groups), limited to groups the config still defines.
 */
export function allowedGroups(
  user: { readonly role: UserRole; readonly groups: readonly string[] | null },
  defaultGroups: readonly string[],
  catalog: Catalog,
): string[] {
  const all = [...catalog.groups.keys()];
  if (user.role === 'admin') return all;
  const own = new Set(user.groups ?? defaultGroups);
  return all.filter((g) => own.has(g));
}

export function groupViews(names: readonly string[], catalog: Catalog): GroupView[] {
  return names.map((name) => ({ name, models: catalog.modelsOfGroup(name).map((m) => m.id) }));
}
