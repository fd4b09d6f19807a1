import { type ChildProcess, spawn } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { join } from 'node:path';

export interface ExitInfo {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

export interface Started {
  readonly name: string;
  /** The pinned program's own pid: taskset execs it, so this is node's (or wrk's) pid. */
  readonly pid: number;
  readonly exited: Promise<ExitInfo>;
}

export interface CommandSpec {
  readonly name: string;
  /** CPU (or CPU list, `0-1`) the process is pinned to with `taskset -c`; its children inherit it. */
  readonly cpu: number | string;
  readonly command: string;
  readonly args: readonly string[];
  readonly env?: NodeJS.ProcessEnv;
  /** Scheduling niceness (`nice -n`), for work off the measured path that shares a CPU with it. */
  readonly nice?: number;
}

interface Entry extends Started {
  readonly child: ChildProcess;
  done: boolean;
  /** Stopped on purpose: its exit is not a failure. */
  stopping: boolean;
  longRunning: boolean;
}

const describe = ({ code, signal }: ExitInfo): string =>
  signal ? `killed by ${signal}` : `exit code ${code}`;

/**
 * Every process the bench starts, pinned to a CPU: long-running servers (output to a log file) and
 * short commands (output captured). Stops them all on teardown, and kills the rest if the bench dies.
 */
export class ProcessGroup {
  private readonly entries: Entry[] = [];
  /** Set by teardown: nothing new starts once it has begun. */
  private closed = false;

  constructor(
    private readonly cwd: string,
    private readonly logDir: string,
  ) {}

  /** Starts a server that must keep running until `stop`; its output goes to `<logDir>/<name>.log`. */
  start(spec: CommandSpec): Started {
    const log = openSync(join(this.logDir, `${spec.name}.log`), 'a');
    try {
      return this.spawn(spec, ['ignore', log, log], true);
    } finally {
      closeSync(log); // the child holds its own copy
    }
  }

  /** Runs a command to completion and returns its stdout; rejects with its stderr on failure. */
  async run(spec: CommandSpec): Promise<string> {
    const entry = this.spawn(spec, ['ignore', 'pipe', 'pipe'], false);
    let out = '';
    let err = '';
    entry.child.stdout?.on('data', (b: Buffer) => (out += b.toString('utf8')));
    entry.child.stderr?.on('data', (b: Buffer) => (err += b.toString('utf8')));
    const exit = await entry.exited;
    if (exit.code !== 0)
      throw new Error(`${spec.name} failed (${describe(exit)}): ${err.trim() || out.trim()}`);
    return out;
  }

  /** Pid of the running server called `name`. */
  pidOf(name: string): number | undefined {
    return this.entries.find((e) => e.name === name && e.longRunning && !e.done)?.pid;
  }

  /** Throws if a server exited that nobody stopped: its numbers would be meaningless. */
  assertAlive(): void {
    const dead = this.entries.filter((e) => e.longRunning && e.done && !e.stopping);
    if (dead.length > 0)
      throw new Error(`${dead.map((e) => e.name).join(', ')} exited unexpectedly (see ${this.logDir})`);
  }

  /** SIGTERM, then SIGKILL after `graceMs`; resolves once it is gone. */
  async stop(name: string, graceMs = 5_000): Promise<void> {
    const entry = this.entries.find((e) => e.name === name && !e.done);
    if (!entry) return;
    entry.stopping = true;
    entry.child.kill('SIGTERM');
    const timer = setTimeout(() => entry.child.kill('SIGKILL'), graceMs);
    await entry.exited;
    clearTimeout(timer);
  }

  /** Stops what is still running, in the order given, then anything else at once; starts nothing more. */
  async stopAll(order: readonly string[], graceMs = 5_000): Promise<void> {
    this.closed = true;
    for (const name of order) await this.stop(name, graceMs);
    await Promise.all(this.entries.filter((e) => !e.done).map((e) => this.stop(e.name, graceMs)));
  }

  /** Last resort on process exit: synchronous, no waiting. */
  killAllNow(): void {
    for (const e of this.entries) if (!e.done) e.child.kill('SIGKILL');
  }

  private spawn(
    spec: CommandSpec,
    stdio: ['ignore', number | 'pipe', number | 'pipe'],
    longRunning: boolean,
  ): Entry {
    if (this.closed) throw new Error(`not starting ${spec.name}: the bench is tearing down`);
    const pinned = ['taskset', '-c', String(spec.cpu), spec.command, ...spec.args];
    // nice and taskset both exec what follows: the pid stays the program's own.
    const argv = spec.nice === undefined ? pinned : ['nice', '-n', String(spec.nice), ...pinned];
    const child = spawn(argv[0]!, argv.slice(1), {
      cwd: this.cwd,
      env: spec.env ?? process.env,
      stdio,
    });
    if (child.pid === undefined) throw new Error(`could not start ${spec.name}`);
    const exited = new Promise<ExitInfo>((resolve) => {
      child.once('exit', (code, signal) => resolve({ code, signal }));
      child.once('error', () => resolve({ code: -1, signal: null }));
    });
    const entry: Entry = {
      name: spec.name,
      pid: child.pid,
      child,
      exited,
      done: false,
      stopping: false,
      longRunning,
    };
    void exited.then(() => {
      entry.done = true;
    });
    this.entries.push(entry);
    return entry;
  }
}
