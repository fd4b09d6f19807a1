import { ConfigError, loadConfigFile, readEnv } from '#libs/config';
import { createEdgeApp } from './edge.app.js';

async function main(): Promise<void> {
  const env = readEnv();
  const config = loadConfigFile(env.configPath);
  const app = await createEdgeApp(env, config);
  await app.listen(env.edgePort, env.host);
  console.log(`edge listening on http://${env.host}:${env.edgePort}`);
}

main().catch((err: unknown) => {
  console.error(err instanceof ConfigError ? err.message : err);
  process.exit(1);
});
