import { execFileSync, spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { availableParallelism, release } from 'node:os';

/** Linux /proc readings for one process, plus the facts about this machine the report prints. */

/** User plus system CPU time of every thread of `pid`, in clock ticks (utime + stime). */
export function cpuTicks(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // The command name (field 2) may hold spaces and parentheses: split after its closing one.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // fields[0] is field 3 (state), so utime (14) and stime (15) sit at 11 and 12.
  return Number(fields[11]) + Number(fields[12]);
}

/** Pids of every process whose command name (/proc/<pid>/comm) is `comm`, e.g. redis-server. */
export function pidsByCommand(comm: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/comm`, 'utf8').trim() === comm) pids.push(Number(entry));
    } catch {
      // gone since readdir
    }
  }
  return pids;
}

/** `pid` and its child processes (an edge cluster's primary and workers), from /proc/<pid>/stat. */
export function processTree(pid: number): number[] {
  const children: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // Field 4 (ppid) is the second after the command name's closing parenthesis.
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === pid) children.push(Number(entry));
    } catch {
      // gone since readdir
    }
  }
  return [pid, ...children];
}

/** RSS of a process and its children together, in kB. */
export function treeRssKb(pid: number, which: 'VmHWM' | 'VmRSS'): number {
  return processTree(pid).reduce((sum, p) => sum + rssKb(p, which), 0);
}

/** CPU ticks per process group (name -> pids), skipping pids that are gone. */
export type CpuSnapshot = Map<string, Map<number, number>>;

export function cpuSnapshot(groups: ReadonlyMap<string, readonly number[]>): CpuSnapshot {
  const snapshot: CpuSnapshot = new Map();
  for (const [name, pids] of groups) {
    const ticks = new Map<number, number>();
    for (const pid of pids) {
      try {
        ticks.set(pid, cpuTicks(pid));
      } catch {
        // exited (a Postgres backend, say): its time is lost, which the report mentions
      }
    }
    snapshot.set(name, ticks);
  }
  return snapshot;
}

/** Ticks each group used between two snapshots; a pid new in `after` counts from zero. */
export function cpuDelta(before: CpuSnapshot, after: CpuSnapshot): Map<string, number> {
  const delta = new Map<string, number>();
  for (const [name, ticks] of after) {
    let sum = 0;
    for (const [pid, t] of ticks) sum += t - (before.get(name)?.get(pid) ?? 0);
    // No process of the group was found: its CPU is unknown, not zero.
    delta.set(name, ticks.size === 0 ? Number.NaN : sum);
  }
  return delta;
}

/** Busy and total jiffies of all CPUs together (/proc/stat `cpu` line; idle and iowait are not busy). */
export function machineCpuTicks(): { busy: number; total: number } {
  const line = readFileSync('/proc/stat', 'utf8').split('\n')[0] ?? '';
  const [, ...values] = line.trim().split(/\s+/);
  // user nice system idle iowait irq softirq steal (guest time is already in user)
  const n = values.slice(0, 8).map(Number);
  const total = n.reduce((a, b) => a + b, 0);
  return { busy: total - (n[3] ?? 0) - (n[4] ?? 0), total };
}

/** Resident set size of `pid` in kB: peak (VmHWM) or current (VmRSS). */
export function rssKb(pid: number, which: 'VmHWM' | 'VmRSS'): number {
  const match = new RegExp(`^${which}:\\s+(\\d+) kB$`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (!match) throw new Error(`no ${which} in /proc/${pid}/status`);
  return Number(match[1]);
}

/** Clock ticks per second (`getconf CLK_TCK`), the unit of utime and stime. */
export function clockTicksPerSecond(): number {
  return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim());
}

export interface MachineFacts {
  readonly nproc: number;
  readonly cpuModel: string;
  readonly node: string;
  readonly kernel: string;
  readonly wrk: string;
}

export function machineFacts(): MachineFacts {
  const cpuinfo = readFileSync('/proc/cpuinfo', 'utf8');
  // `wrk -v` prints its version, then usage, and exits non-zero.
  const wrk = spawnSync('wrk', ['-v'], { encoding: 'utf8' });
  if (wrk.error)
    throw new Error(`the bench drives its load with wrk, not found here: apt-get install -y wrk`);
  const wrkBanner = wrk.stdout.split('\n')[0] ?? '';
  return {
    nproc: availableParallelism(),
    cpuModel: /^model name\s*:\s*(.+)$/m.exec(cpuinfo)?.[1]?.trim() ?? 'unknown',
    node: process.version,
    kernel: release(),
    wrk: /^wrk (\S+)/.exec(wrkBanner)?.[1] ?? wrkBanner,
  };
}

/**
 * Nanoseconds the main thread of each of `pids` spent runnable but waiting for a CPU (the second
 * field of /proc/<pid>/schedstat): time taken from it by whatever else the scheduler ran on its
 * CPU. For a Node process that is the event loop's thread.
 */
export function runQueueNs(pids: readonly number[]): number {
  let sum = 0;
  for (const p of pids) {
    try {
      sum += Number(readFileSync(`/proc/${p}/schedstat`, 'utf8').split(' ')[1]);
    } catch {
      // gone since it was listed
    }
  }
  return sum;
}

/** runQueueNs per process group. */
export function runQueueSnapshot(groups: ReadonlyMap<string, readonly number[]>): Map<string, number> {
  return new Map([...groups].map(([name, pids]) => [name, runQueueNs(pids)]));
}
