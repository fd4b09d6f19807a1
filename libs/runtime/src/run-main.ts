import { type INestApplication } from '@nestjs/common';
import { ConfigError, type Env, type GatewayConfig, loadConfigFile, readEnv } from '#libs/config';
import { GracefulDrain } from './graceful-drain.js';
import { createLogger, shutdownTelemetry, TelemetryConfigError } from '#libs/telemetry';

export interface MainSpec {
  readonly name: string;
  readonly create: (env: Env, config: GatewayConfig) => Promise<INestApplication>;
  readonly port: (env: Env) => number;
  /** Longest a clean stop may take before the process exits anyway (default 30 s). */
  readonly shutdownBudgetMs?: (config: GatewayConfig) => number;
}

const DEFAULT_SHUTDOWN_BUDGET_MS = 30_000;

/**
 * The whole life of an app process: env and config read once (a bad config exits 1 with the message
 * naming the field), listen, and on SIGTERM/SIGINT close the app (each module drains what it holds)
 * and exit 0. Signals are handled here rather than by Nest, which re-raises them and so turns a clean
 * stop into exit code 143. A stop that overruns its budget (a hook waiting on something that never
 * answers) exits 1 instead of hanging until the orchestrator's SIGKILL.
 */
export function runMain({ name, create, port, shutdownBudgetMs }: MainSpec): void {
  const start = async (): Promise<void> => {
    const env = readEnv();
    const log = createLogger({ app: name, level: env.logLevel });
    const config = loadConfigFile(env.configPath);
    const budgetMs = shutdownBudgetMs?.(config) ?? DEFAULT_SHUTDOWN_BUDGET_MS;
    const app = await create(env, config);
    let closing = false;
    const stop = (signal: NodeJS.Signals): void => {
      if (closing) return;
      closing = true;
      log.info(`${signal}, shutting down`);
      // Readiness fails first, before module teardown (which may take a while) begins. Every app
      // registers GracefulDrain (see gracefulDrain()).
      app.get(GracefulDrain, { strict: false }).beginDraining();
      setTimeout(() => {
        log.error(`shutdown took longer than ${budgetMs} ms, exiting`);
        process.exit(1);
      }, budgetMs).unref();
      // Spans and metrics still buffered are exported (bounded) before the process goes.
      app.close().then(
        () => shutdownTelemetry().finally(() => process.exit(0)),
        (err: unknown) => {
          log.error({ err }, 'shutdown failed');
          process.exit(1);
        },
      );
    };
    process.once('SIGTERM', stop);
    process.once('SIGINT', stop);
    await app.listen(port(env), env.host);
    log.info(`listening on http://${env.host}:${port(env)}`);
  };
  start().catch((err: unknown) => {
    // Before the env is read there is no logger yet: configuration errors go out as plain lines.
    console.error(err instanceof ConfigError || err instanceof TelemetryConfigError ? err.message : err);
    process.exit(1);
  });
}
