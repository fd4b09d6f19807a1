import { type Kysely } from 'kysely';
import { type MigrationResult, Migrator } from 'kysely/migration';
import { type Database } from './database.js';
import { MIGRATIONS } from './migrations/index.js';

export class MigrationFailedError extends Error {
  override readonly name = 'MigrationFailedError';
  constructor(
    message: string,
    readonly results: readonly MigrationResult[],
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

function migrator(db: Kysely<Database>): Migrator {
  return new Migrator({ db, provider: { getMigrations: async () => ({ ...MIGRATIONS }) } });
}

/**
 * Applies every pending migration (in one transaction, under kysely's migration lock) and
 * returns the names applied, oldest first. Throws MigrationFailedError naming the failing one.
 */
export async function migrateToLatest(db: Kysely<Database>): Promise<string[]> {
  const { error, results = [] } = await migrator(db).migrateToLatest();
  if (error) {
    const failed = results.find((r) => r.status === 'Error')?.migrationName;
    const reason = error instanceof Error ? error.message : String(error);
    throw new MigrationFailedError(
      failed ? `migration ${failed} failed: ${reason}` : `migrations failed: ${reason}`,
      results,
      {
        cause: error,
      },
    );
  }
  return results.filter((r) => r.status === 'Success').map((r) => r.migrationName);
}

/** Names of the migrations known to the code, in apply order. */
export function knownMigrations(): string[] {
  return Object.keys(MIGRATIONS).sort();
}
