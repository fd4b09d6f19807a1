/** `npm run key:create -- --email you@example.com --group default [--name "my key"] [--expires-days N]` */
import { exitUnlessSupportedNode } from '#libs/node-runtime';

exitUnlessSupportedNode('key:create');
const { ConfigError, readEnv } = await import('#libs/config');
const { loadConfigFile } = await import('#libs/gateway-config');
const { createDb } = await import('#libs/db');
const { currentConfig, readHead } = await import('#libs/config-store');
const { createKeyCommand } = await import('./key-create.command.js');

async function main(): Promise<number> {
  const env = readEnv();
  let config;
  try {
    config = loadConfigFile(env.configPath);
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    console.error(err.message);
    return 1;
  }
  const db = createDb(env.databaseUrl, { poolSize: 1, applicationName: 'gateway-key-create' });
  try {
    // The groups an admin added in the console exist here too (config.source: database).
    const live = await currentConfig(config, async () => (await readHead(db))?.document ?? null);
    return await createKeyCommand(process.argv.slice(2), {
      db,
      config: live,
      out: (line) => console.log(line),
      err: (line) => console.error(line),
    });
  } finally {
    await db.destroy();
  }
}

process.exitCode = await main();
