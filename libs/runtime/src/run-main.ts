import cluster from 'node:cluster';
import { type INestApplication } from '@nestjs/common';
import { ConfigError, type Env, type GatewayConfig, type ProcessCount, readEnv } from '#libs/config';
import { loadConfigFile } from '#libs/gateway-config';
import { GracefulDrain } from './graceful-drain.js';
import { appLogger, joinClusterMetrics, shutdownTelemetry, TelemetryConfigError } from '#libs/telemetry';
import { platformEnv } from '#libs/providers';
import { processesFor, quotaCpus, readCpuFacts } from './cluster/cpu-count.js';
import { runPrimary } from './cluster/primary.js';

export interface MainSpec {
  readonly name: string;
  readonly create: (env: Env, config: GatewayConfig) => Promise<INestApplication>;
  readonly port: (env: Env) => number;
  /** Longest a clean stop may take before the process exits anyway (default 30 s). */
  readonly shutdownBudgetMs?: (config: GatewayConfig) => number;
  /**
   * Processes serving the port (default 1). Above 1 this process becomes a cluster primary that
   * forks them (cluster/primary.ts); `create` then only ever runs in the workers.
   */
  readonly processes?: (env: Env) => ProcessCount;
}

const DEFAULT_SHUTDOWN_BUDGET_MS = 30_000;

/**
 * The whole life of an app process: env and config read once (a bad config exits 1 with the message
 * naming the field), listen, and on SIGTERM/SIGINT close the app (each module drains what it holds)
 * and exit 0. Signals are handled here rather than by Nest, which re-raises them and so turns a clean
 * stop into exit code 143. A stop that overruns its budget (a hook waiting on something that never
 * answers) exits 1 instead of hanging until the orchestrator's SIGKILL.
 */
export function runMain({ name, create, port, shutdownBudgetMs, processes }: MainSpec): void {
  const start = async (): Promise<void> => {
    const env = readEnv(undefined, platformEnv());
    const log = appLogger(env, name);
    // Read in the primary too, so a bad file stops the pod with one message, not a crash loop.
    const config = loadConfigFile(env.configPath);
    const budgetMs = shutdownBudgetMs?.(config) ?? DEFAULT_SHUTDOWN_BUDGET_MS;
    if (cluster.isPrimary && processes) {
      const setting = processes(env);
      const facts = readCpuFacts();
      const count = processesFor(setting, facts);
      if (setting === 'auto')
        log.info(
          `processes: auto = ${count} (${facts.parallelism} CPUs available, cgroup quota ${quotaCpus(facts) ?? 'none'})`,
        );
      if (count > 1) return runPrimary({ name, processes: count, log, shutdownBudgetMs: budgetMs });
    }
    if (cluster.isWorker) joinClusterMetrics();
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
    // A cluster worker may get a signal twice (Ctrl-C reaches the whole process group, and the
    // primary forwards it too): the second must not kill it mid-drain. A lone process keeps the
    // default for the second, so a second Ctrl-C still ends a stuck stop at once.
    const listen = cluster.isWorker ? process.on.bind(process) : process.once.bind(process);
    listen('SIGTERM', stop);
    listen('SIGINT', stop);
    await app.listen(port(env), env.host);
    log.info(`listening on http://${env.host}:${port(env)}`);
  };
  start().catch((err: unknown) => {
    // Before the env is read there is no logger yet: configuration errors go out as plain lines.
    console.error(err instanceof ConfigError || err instanceof TelemetryConfigError ? err.message : err);
    process.exit(1);
  });
}
