import { type ChildProcess, spawn } from 'node:child_process';
import { APP_NODE_FLAGS } from '#libs/runtime';
import { LineSplitter } from './output.js';
import { DEFAULT_RESTART_POLICY, nextAttempt, type RestartPolicy, restartDelayMs } from './restart.js';
import { describeExit, type ExitInfo, type Stoppable, shutdownStages, withDeadline } from './shutdown.js';

export interface ChildSpec extends Stoppable {
  /** Arguments to `node` (the script and its flags). */
  readonly args: readonly string[];
}

/** Where the children's lines and the supervisor's own go (LogRelay). */
export interface LineSink {
  childLine(app: string, pid: number | undefined, stream: 'stdout' | 'stderr', text: string): void;
  say(level: 'info' | 'warn' | 'error', message: string, fields?: Record<string, unknown>): void;
}

export interface SupervisorOptions {
  readonly cwd: string;
  readonly env: NodeJS.ProcessEnv;
  readonly sink: LineSink;
  /** When a crashed long-running child is started again (DEFAULT_RESTART_POLICY unless given). */
  readonly restart?: RestartPolicy;
}

interface Running {
  readonly spec: ChildSpec;
  readonly process: ChildProcess;
  readonly exited: Promise<ExitInfo>;
  exit?: ExitInfo;
}

/**
 * Runs node children, hands every line they print to the sink, restarts a long-running child that
 * exits on its own (alone, with backoff: the others keep running), and stops them in order,
 * SIGTERM then SIGKILL.
 */
export class Supervisor {
  private readonly running: Running[] = [];
  private readonly restartTimers = new Set<NodeJS.Timeout>();
  private readonly policy: RestartPolicy;
  private stopping = false;

  constructor(private readonly options: SupervisorOptions) {
    this.policy = options.restart ?? DEFAULT_RESTART_POLICY;
  }

  get isStopping(): boolean {
    return this.stopping;
  }

  /**
   * Starts a child meant to run until `stop()`. Should it exit before then, whatever the code or
   * signal, it is logged and started again after the policy's delay; nothing else is touched.
   */
  start(spec: ChildSpec): void {
    this.supervise(spec, 0);
  }

  /** Runs a one-shot child (e.g. migrations) to completion. */
  async run(spec: ChildSpec): Promise<ExitInfo> {
    return this.spawn(spec).exited;
  }

  /**
   * Stops every child stage by stage (see shutdownStages). Each stage gets SIGTERM; whatever is
   * still alive when `graceMs` (for the whole shutdown) runs out gets SIGKILL.
   */
  async stop(graceMs: number): Promise<void> {
    this.stopping = true;
    this.cancelRestarts();
    const deadline = Date.now() + graceMs;
    for (const stage of shutdownStages(this.alive().map((r) => ({ ...r.spec, running: r })))) {
      const members = stage.map((s) => s.running).filter((r) => r.exit === undefined);
      if (members.length === 0) continue;
      this.options.sink.say('info', `stopping ${members.map((r) => r.spec.name).join(', ')}`);
      for (const r of members) signal(r, 'SIGTERM');
      await withDeadline(Promise.all(members.map((r) => r.exited)), deadline - Date.now(), []);
    }
    const stuck = this.alive();
    for (const r of stuck) {
      this.options.sink.say('warn', `${r.spec.name} did not stop within ${graceMs} ms: SIGKILL`);
      signal(r, 'SIGKILL');
    }
    await Promise.all(stuck.map((r) => r.exited));
  }

  /** Last resort when this process is exiting anyway: no waiting possible. */
  killAllNow(): void {
    this.stopping = true;
    this.cancelRestarts();
    for (const r of this.alive()) signal(r, 'SIGKILL');
  }

  /** Runs `spec` once more; `attempt` counts the restarts in a row that came after short runs. */
  private supervise(spec: ChildSpec, attempt: number): void {
    const startedAt = Date.now();
    const child = this.spawn(spec);
    if (attempt > 0)
      this.options.sink.say('info', `${spec.name} restarted (pid ${child.process.pid ?? '?'})`);
    void child.exited.then((exit) => {
      if (this.stopping) return;
      const uptimeMs = Date.now() - startedAt;
      const next = nextAttempt(attempt, uptimeMs, this.policy);
      const delayMs = restartDelayMs(next, this.policy);
      this.options.sink.say(
        'error',
        `${spec.name} ${describeExit(exit)} after ${seconds(uptimeMs)}; restarting it in ${seconds(delayMs)}` +
          ` (restart ${next} in a row), the others keep running`,
        {
          child: spec.name,
          exit_code: exit.code,
          signal: exit.signal,
          uptime_ms: uptimeMs,
          restart: next,
          delay_ms: delayMs,
        },
      );
      const timer = setTimeout(() => {
        this.restartTimers.delete(timer);
        if (!this.stopping) this.supervise(spec, next);
      }, delayMs);
      this.restartTimers.add(timer);
    });
  }

  private cancelRestarts(): void {
    for (const timer of this.restartTimers) clearTimeout(timer);
    this.restartTimers.clear();
  }

  private alive(): Running[] {
    return this.running.filter((r) => r.exit === undefined);
  }

  private spawn(spec: ChildSpec): Running {
    const { cwd, env, sink } = this.options;
    // Own process group: a terminal Ctrl-C reaches only us, so we decide the stopping order.
    const child = spawn(process.execPath, ['--enable-source-maps', ...APP_NODE_FLAGS, ...spec.args], {
      cwd,
      env,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const streams = { stdout: new LineSplitter(), stderr: new LineSplitter() };
    const relay = (stream: 'stdout' | 'stderr', lines: string[]): void => {
      for (const line of lines) sink.childLine(spec.name, child.pid, stream, line);
    };
    child.stdout.on('data', (chunk: Buffer) => relay('stdout', streams.stdout.push(chunk)));
    child.stderr.on('data', (chunk: Buffer) => relay('stderr', streams.stderr.push(chunk)));
    const running: Running = {
      spec,
      process: child,
      exited: new Promise<ExitInfo>((resolve) => {
        // 'close' (not 'exit'): both pipes are drained, so the last lines are already relayed.
        child.on('close', (code, sig) => {
          relay('stdout', streams.stdout.flush());
          relay('stderr', streams.stderr.flush());
          running.exit = { code, signal: sig };
          this.forget(running);
          resolve(running.exit);
        });
        child.on('error', (error) => {
          relay('stderr', [`failed to start: ${error.message}`]);
          running.exit = { code: null, signal: null };
          this.forget(running);
          resolve(running.exit);
        });
      }),
    };
    this.running.push(running);
    return running;
  }

  /** An exited child leaves the list, so a crash loop does not grow it. */
  private forget(running: Running): void {
    const index = this.running.indexOf(running);
    if (index >= 0) this.running.splice(index, 1);
  }
}

const seconds = (ms: number): string => `${(ms / 1000).toFixed(ms < 10_000 ? 1 : 0)} s`;

function signal(r: Running, sig: NodeJS.Signals): void {
  const pid = r.process.pid;
  if (pid === undefined) return;
  try {
    process.kill(-pid, sig); // the whole group, in case the app started helpers
  } catch {
    r.process.kill(sig);
  }
}
