import { exitUnlessSupportedNode } from '#libs/node-runtime';

exitUnlessSupportedNode('migrate');
// Loaded after the check: on an older Node a dependency would fail before the check could speak.
const { readEnv, redactUrl } = await import('#libs/config');
const { createDb, ensureDatabase } = await import('./connection.js');
const { migrateToLatest } = await import('./migrator.js');

/** `npm run migrate`: creates the database if missing, then applies pending migrations. */
async function main(): Promise<number> {
  const { databaseUrl } = readEnv();
  const where = redactUrl(databaseUrl);
  try {
    if (await ensureDatabase(databaseUrl)) console.log(`created database ${where}`);
  } catch (err) {
    console.error(`migrate: cannot reach or create the database ${where}: ${(err as Error).message}`);
    return 1;
  }
  const db = createDb(databaseUrl, { poolSize: 1, applicationName: 'gateway-migrate' });
  try {
    const applied = await migrateToLatest(db);
    if (applied.length === 0) console.log(`migrate: ${where} is up to date`);
    for (const name of applied) console.log(`migrate: applied ${name}`);
    return 0;
  } catch (err) {
    console.error(`migrate: failed on ${where}: ${(err as Error).message}`);
    return 1;
  } finally {
    await db.destroy();
  }
}

process.exitCode = await main();
