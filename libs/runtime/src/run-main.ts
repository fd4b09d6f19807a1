import { type INestApplication } from '@nestjs/common';
import { ConfigError, type Env, type GatewayConfig, loadConfigFile, readEnv } from '#libs/config';

export interface MainSpec {
  readonly name: string;
  readonly create: (env: Env, config: GatewayConfig) => Promise<INestApplication>;
  readonly port: (env: Env) => number;
}

/**
 * The whole life of an app process: env and config read once (a bad config exits 1 with the message
 * naming the field), listen, and on SIGTERM/SIGINT close the app (each module drains what it holds)
 * and exit 0. Signals are handled here rather than by Nest, which re-raises them and so turns a clean
 * stop into exit code 143.
 */
export function runMain({ name, create, port }: MainSpec): void {
  const start = async (): Promise<void> => {
    const env = readEnv();
    const app = await create(env, loadConfigFile(env.configPath));
    let closing = false;
    const stop = (signal: NodeJS.Signals): void => {
      if (closing) return;
      closing = true;
      console.log(`${name}: ${signal}, shutting down`);
      app.close().then(
        () => process.exit(0),
        (err: unknown) => {
          console.error(`${name}: shutdown failed`, err);
          process.exit(1);
        },
      );
    };
    process.once('SIGTERM', stop);
    process.once('SIGINT', stop);
    await app.listen(port(env), env.host);
    console.log(`${name} listening on http://${env.host}:${port(env)}`);
  };
  start().catch((err: unknown) => {
    console.error(err instanceof ConfigError ? err.message : err);
    process.exit(1);
  });
}
