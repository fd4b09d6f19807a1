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
  try {
    if (await ensureDatabase(env.databaseUrl)) log.info(`created database ${where}`);
  } catch (err) {
    log.error(`cannot reach or create the database ${where}: ${(err as Error).message}`);
    return 1;
  }
  const db = createDb(env.databaseUrl, { poolSize: 1, applicationName: 'gateway-migrate' });
  try {
    const applied = await migrateToLatest(db);
    for (const name of applied) log.debug(`applied ${name}`);
    // One line, not one per migration: a first run applies them all.
    log.info(
      applied.length === 0
        ? `${where} is up to date`
        : `applied ${applied.length} migration${applied.length === 1 ? '' : 's'} to ${where}, now at ${applied.at(-1)}`,
    );
    return 0;
  } catch (err) {
    log.error(`failed on ${where}: ${(err as Error).message}`);
    return 1;
  } finally {
    await db.destroy();
  }
}

process.exitCode = await main();
