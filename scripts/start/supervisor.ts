import { type ChildProcess, spawn } from 'node:child_process';
import { APP_NODE_FLAGS } from '#libs/runtime';
import { LineSplitter } from './output.js';
import { type ExitInfo, type Stoppable, shutdownStages, withDeadline } from './shutdown.js';

export interface ChildSpec extends Stoppable {
  /** Arguments to `node` (the script and its flags). */
  readonly args: readonly string[];
}

/** Where the children's lines and the supervisor's own go (LogRelay). */
export interface LineSink {
  childLine(app: string, pid: number | undefined, stream: 'stdout' | 'stderr', text: string): void;
  say(level: 'info' | 'warn', message: string): void;
}

export interface SupervisorOptions {
  readonly cwd: string;
  readonly env: NodeJS.ProcessEnv;
  readonly sink: LineSink;
}

interface Running {
  readonly spec: ChildSpec;
  readonly process: ChildProcess;
  readonly exited: Promise<ExitInfo>;
  exit?: ExitInfo;
}

type ExitListener = (name: string, exit: ExitInfo) => void;

/** Runs node children, hands every line they print to the sink, and stops them in order, SIGTERM then SIGKILL. */
export class Supervisor {
  private readonly running: Running[] = [];
  private readonly exitListeners: ExitListener[] = [];
  private stopping = false;

  constructor(private readonly options: SupervisorOptions) {}

  /** Called when a long-running child exits while nobody asked it to stop. */
  onUnexpectedExit(listener: ExitListener): void {
    this.exitListeners.push(listener);
  }

  get isStopping(): boolean {
    return this.stopping;
  }

  /** Starts a child meant to run until `stop()`; its exit before then is reported as unexpected. */
  start(spec: ChildSpec): void {
    const child = this.spawn(spec);
    void child.exited.then((exit) => {
      if (!this.stopping) for (const listener of this.exitListeners) listener(spec.name, exit);
    });
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
    for (const r of this.alive()) signal(r, 'SIGKILL');
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
          resolve(running.exit);
        });
        child.on('error', (error) => {
          relay('stderr', [`failed to start: ${error.message}`]);
          running.exit = { code: null, signal: null };
          resolve(running.exit);
        });
      }),
    };
    this.running.push(running);
    return running;
  }
}

function signal(r: Running, sig: NodeJS.Signals): void {
  const pid = r.process.pid;
  if (pid === undefined) return;
  try {
    process.kill(-pid, sig); // the whole group, in case the app started helpers
  } catch {
    r.process.kill(sig);
  }
}
