import { ConfigError, loadConfigFile, readEnv } from '#libs/config';
import { createRouterApp } from './router.app.js';

async function main(): Promise<void> {
  const env = readEnv();
  const config = loadConfigFile(env.configPath);
  const app = await createRouterApp(env, config);
  // SIGTERM/SIGINT: stop probing, release the lease, close Redis, close the server (module hooks).
  app.enableShutdownHooks(['SIGTERM', 'SIGINT']);
  await app.listen(env.routerPort, env.host);
  console.log(`router listening on http://${env.host}:${env.routerPort}`);
}

main().catch((err: unknown) => {
  console.error(err instanceof ConfigError ? err.message : err);
  process.exit(1);
});
