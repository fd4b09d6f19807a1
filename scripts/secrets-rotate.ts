/** `GATEWAY_SECRET_KEYS=new:<base64>,old:<base64> npm run secrets:rotate` (docs/configuration.md). */
import { exitUnlessSupportedNode } from '#libs/node-runtime';

exitUnlessSupportedNode('secrets:rotate');
const { readEnv } = await import('#libs/config');
const { createDb } = await import('#libs/db');
const { rotateCommand } = await import('./secrets-rotate.command.js');

const env = readEnv();
const db = createDb(env.databaseUrl, { poolSize: 1, applicationName: 'gateway-secrets-rotate' });
try {
  process.exitCode = await rotateCommand({
    db,
    keys: env.secrets.GATEWAY_SECRET_KEYS,
    out: (line) => console.log(line),
    err: (line) => console.error(line),
  });
} finally {
  await db.destroy();
}
