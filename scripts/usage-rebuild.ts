/** `npm run usage:rebuild -- --from 2026-11-01 [--to 2026-11-02] [--force]` */
import { exitUnlessSupportedNode } from '#libs/node-runtime';

exitUnlessSupportedNode('usage:rebuild');
const { readEnv } = await import('#libs/config');
const { createDb } = await import('#libs/db');
const { usageRebuildCommand } = await import('./usage-rebuild.command.js');

async function main(): Promise<number> {
  const env = readEnv();
  const db = createDb(env.databaseUrl, { poolSize: 1, applicationName: 'gateway-usage-rebuild' });
  try {
    return await usageRebuildCommand(process.argv.slice(2), {
      db,
      out: (line) => console.log(line),
      err: (line) => console.error(line),
    });
  } finally {
    await db.destroy();
  }
}

process.exitCode = await main();
