import { ConfigError, loadConfigFile, readEnv } from '#libs/config';
import { createConsoleApp } from './console.app.js';

async function main(): Promise<void> {
  const env = readEnv();
  const config = loadConfigFile(env.configPath);
  const app = await createConsoleApp(env, config);
  await app.listen(env.consolePort, env.host);
  console.log(`console listening on http://${env.host}:${env.consolePort}`);
}

main().catch((err: unknown) => {
  console.error(err instanceof ConfigError ? err.message : err);
  process.exit(1);
});
