import cluster, { type Worker } from 'node:cluster';
import { type Logger } from 'pino';
import { ClusterMetricsHub } from '#libs/telemetry';
import { RestartPolicy } from './restart-policy.js';

export interface PrimaryOptions {
  readonly name: string;
  readonly processes: number;
  readonly log: Logger;
  /** A worker's own stop budget: the primary waits this long (plus a margin) for each to drain. */
  readonly shutdownBudgetMs: number;
  readonly policy?: RestartPolicy;
}

/** Past the workers' own budget (they exit 1 at theirs), before the orchestrator's SIGKILL. */
const STOP_MARGIN_MS = 2_000;

interface Running {
  readonly worker: Worker;
  listeningAt: number | null;
}

/**
 * The cluster primary: forks `processes` workers that each run the whole app on the shared port
 * (the primary holds the listening socket and hands connections out in turn), replaces a worker that
 * dies (backoff, see RestartPolicy), forwards SIGTERM/SIGINT and exits once every worker has
 * drained: 0 when all stopped cleanly, 1 otherwise, and 1 when workers keep dying at boot.
 * It serves no request itself; it only sums the workers' metrics for `/metrics` (ClusterMetricsHub).
 */
export function runPrimary(opts: PrimaryOptions): void {
  const { log, name } = opts;
  const policy = opts.policy ?? new RestartPolicy();
  const metrics = new ClusterMetricsHub();
  const running = new Map<number, Running>();
  let stopping = false;
  let failed = false;

  // Round robin, not the kernel's choice: with SCHED_NONE Linux wakes the same busy worker for
  // most new connections. `advanced` IPC carries metric values JSON cannot (Infinity, NaN).
  cluster.schedulingPolicy = cluster.SCHED_RR;
  cluster.setupPrimary({ serialization: 'advanced' });

  const fork = (): void => {
    if (stopping) return;
    const worker = cluster.fork();
    running.set(worker.id, { worker, listeningAt: null });
    metrics.attach(worker);
  };

  cluster.on('listening', (worker) => {
    const entry = running.get(worker.id);
    if (entry && entry.listeningAt === null) entry.listeningAt = Date.now();
  });

  cluster.on('exit', (worker, code, signal) => {
    const entry = running.get(worker.id);
    running.delete(worker.id);
    metrics.detach(worker);
    const pid = worker.process.pid;
    const how = signal ? `killed by ${signal}` : `exit code ${code}`;
    if (stopping) {
      if (code !== 0) failed = true;
      log.info({ worker: pid }, `${name} worker ${pid} stopped (${how}); ${running.size} left`);
      if (running.size === 0) process.exit(failed ? 1 : 0);
      return;
    }
    const servedMs = entry?.listeningAt == null ? null : Date.now() - entry.listeningAt;
    const decision = policy.onUnexpectedExit(servedMs);
    if (!decision.restart) {
      log.fatal({ worker: pid }, `${name} worker ${pid} ${how}: ${decision.reason}; giving up`);
      return stop('SIGTERM', 1);
    }
    log.error(
      { worker: pid, servedMs },
      `${name} worker ${pid} ${how} unexpectedly${servedMs === null ? ' before listening' : ''}; a new one in ${decision.delayMs} ms`,
    );
    setTimeout(fork, decision.delayMs);
  });

  const stop = (signal: NodeJS.Signals, exitCode = 0): void => {
    if (stopping) return;
    stopping = true;
    failed = exitCode !== 0;
    log.info(`${signal}, stopping ${running.size} ${name} workers`);
    if (running.size === 0) process.exit(exitCode);
    for (const { worker } of running.values()) worker.process.kill(signal);
    setTimeout(() => {
      log.error(
        `${name} workers still running after ${opts.shutdownBudgetMs + STOP_MARGIN_MS} ms, killing them`,
      );
      for (const { worker } of running.values()) worker.process.kill('SIGKILL');
      process.exit(1);
    }, opts.shutdownBudgetMs + STOP_MARGIN_MS).unref();
  };
  // `on`, not `once`: Ctrl-C signals the whole process group, and a second signal must not kill
  // the primary (the default action) while its workers drain.
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));

  log.info(`starting ${opts.processes} ${name} workers`);
  for (let i = 0; i < opts.processes; i++) fork();
}
