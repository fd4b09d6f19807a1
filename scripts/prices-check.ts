/** `npm run prices:check [-- --strict]`: configured model prices against the price catalog. */
import { exitUnlessSupportedNode } from '#libs/node-runtime';

exitUnlessSupportedNode('prices:check');
const { ConfigError, readEnv } = await import('#libs/config');
const { loadConfigFile } = await import('#libs/gateway-config');
const { pricesCheckCommand } = await import('./prices-check.command.js');

function main(): number {
  let config;
  try {
    config = loadConfigFile(readEnv().configPath);
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    console.error(err.message);
    return 2;
  }
  return pricesCheckCommand(process.argv.slice(2), {
    config,
    out: (line) => console.log(line),
    err: (line) => console.error(line),
  });
}

process.exitCode = main();
