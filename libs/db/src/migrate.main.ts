import { exitUnlessSupportedNode } from '#libs/node-runtime';

exitUnlessSupportedNode('migrate');
// Loaded after the check: on an older Node a dependency would fail before the check could speak.
const { readEnv, redactUrl } = await import('#libs/config');
const { appLogger } = await import('#libs/logging');
const { createDb, ensureDatabase } = await import('./connection.js');
const { migrateToLatest } = await import('./migrator.js');
const { completeLogIndexes } = await import('./log-indexes.repository.js');

/**
 * `npm run migrate`: creates the database if missing, applies pending migrations, then builds
 * (concurrently, outside any transaction) the request_logs indexes a migration left to large
 * partitions (migration 0021; docs/operations.md, "Request log indexes").
 */
async function main(): Promise<number> {
  const env = readEnv();
  const log = appLogger(env, 'migrate');
  const where = redactUrl(env.databaseUrl);
  let created: boolean;
  try {
    created = await ensureDatabase(env.databaseUrl);
  } catch (err) {
    log.error(`cannot reach or create the database ${where}: ${(err as Error).message}`);
    return 1;
  }
  const db = createDb(env.databaseUrl, { poolSize: 1, applicationName: 'gateway-migrate' });
  try {
    const applied = await migrateToLatest(db);
    for (const name of applied) log.debug(`applied ${name}`);
    // One line, not one per migration: a first run creates the database and applies them all.
    log.info(summary(where, created, applied));
    const built = await completeLogIndexes(db, (name, ms) =>
      log.info(`built index ${name} concurrently in ${Math.round(ms)} ms`),
    );
    if (built.length > 0) log.info(`request_logs: ${built.length} partition indexes built and attached`);
    return 0;
  } catch (err) {
    log.error(`failed on ${where}: ${(err as Error).message}`);
    return 1;
  } finally {
    await db.destroy();
  }
}

function summary(where: string, created: boolean, applied: readonly string[]): string {
  if (applied.length === 0) return created ? `created ${where}` : `${where} is up to date`;
  const count = `${applied.length} migration${applied.length === 1 ? '' : 's'}`;
  const now = `now at ${applied.at(-1)}`;
  return created ? `created ${where} and applied ${count}, ${now}` : `applied ${count} to ${where}, ${now}`;
}

process.exitCode = await main();
