import { ConfigError, loadConfigFile, readEnv } from '#libs/config';
import { createWorkerApp } from './worker.app.js';

async function main(): Promise<void> {
  const env = readEnv();
  const config = loadConfigFile(env.configPath);
  const app = await createWorkerApp(env, config);
  // SIGTERM/SIGINT close the app: the queue worker stops, the batch in hand commits, clients close.
  app.enableShutdownHooks(['SIGTERM', 'SIGINT']);
  await app.listen(env.workerPort, env.host);
  console.log(`worker listening on http://${env.host}:${env.workerPort}`);
}

main().catch((err: unknown) => {
  console.error(err instanceof ConfigError ? err.message : err);
  process.exit(1);
});
