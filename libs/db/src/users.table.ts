import { type ColumnType, type Generated, type Insertable, type Selectable, type Updateable } from 'kysely';
import { type CreatedAt } from './column-types.js';

/**
 * Console roles (issue 24), strongest first: admin (everything), operator (providers, models,
 * groups, routes, configuration; no users or money), auditor (reads everything, changes nothing),
 * member (own keys, usage, logs). Migration 0015 renamed the former 'user' to 'member'.
 */
export const USER_ROLES = ['admin', 'operator', 'auditor', 'member'] as const;
export type UserRole = (typeof USER_ROLES)[number];
export const USER_STATUSES = ['active', 'disabled'] as const;
export type UserStatus = (typeof USER_STATUSES)[number];

export interface UsersTable {
  id: Generated<string>;
  /** Always stored lowercased and trimmed (a check constraint holds it), so `unique` is case-insensitive. */
  email: string;
  /** Null until the console sets a password (users created by `key:create` have none). */
  password_hash: ColumnType<string | null, string | null | undefined, string | null>;
  role: ColumnType<UserRole, UserRole | undefined, UserRole>;
  status: ColumnType<UserStatus, UserStatus | undefined, UserStatus>;
  /** Groups the user may give keys; null = the console's default groups (admins may use all). */
  groups: ColumnType<string[] | null, string[] | null | undefined, string[] | null>;
  created_at: CreatedAt;
}

export type User = Selectable<UsersTable>;
export type NewUser = Insertable<UsersTable>;
export type UserUpdate = Updateable<UsersTable>;
