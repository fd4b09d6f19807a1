import { exitUnlessSupportedNode } from '#libs/node-runtime';

exitUnlessSupportedNode('migrate');
// Loaded after the check: on an older Node a dependency would fail before the check could speak.
const { readEnv, redactUrl } = await import('#libs/config');
const { appLogger } = await import('#libs/logging');
const { createDb, ensureDatabase } = await import('./connection.js');
const { migrateToLatest } = await import('./migrator.js');

/** `npm run migrate`: creates the database if missing, then applies pending migrations. */
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
