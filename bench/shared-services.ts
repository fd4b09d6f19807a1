import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { pidsByCommand } from './proc-stats.js';
import { LOG_PIPELINE_NICE } from './stack.js';

function affinityMask(pid: number): string | null {
  try {
    const out = execFileSync('taskset', ['-p', String(pid)], { encoding: 'utf8' });
    return /affinity mask:\s*([0-9a-f]+)/i.exec(out)?.[1] ?? null;
  } catch {
    return null;
  }
}

function setAffinity(pid: number, args: readonly string[]): void {
  try {
    execFileSync('taskset', ['-a', '-p', ...args, String(pid)], { stdio: 'ignore' });
  } catch {
    // gone since it was listed, or a kernel thread bound to its CPU
  }
}

function niceness(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Field 19 (nice) is the 17th after the command name's closing parenthesis.
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
  } catch {
    return null;
  }
}

function renice(pid: number, nice: number): void {
  try {
    execFileSync('renice', ['-n', String(nice), '-p', String(pid)], { stdio: 'ignore' });
  } catch {
    // gone since it was listed
  }
}

/** User-space processes (kernel threads have an empty command line), this one excluded. */
function userProcesses(): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      if (readFileSync(`/proc/${entry}/cmdline`).length > 0) pids.push(Number(entry));
    } catch {
      // gone since readdir
    }
  }
  return pids;
}

/**
 * Leaves the edge's CPU to the edge: every user-space process already running (Redis, Postgres,
 * and whatever else the machine hosts: here a message broker, MariaDB, NATS...) is moved with all
 * its threads onto `cpu`, and Postgres backends forked later inherit it from the postmaster. Left
 * floating, they took the edge's CPU in the middle of its requests, which showed as event-loop
 * stalls and a millisecond tail no change in the edge could remove. Postgres, which no request
 * waits for (logs reach it through the worker; keys are cached), also gets LOG_PIPELINE_NICE like
 * the worker; Redis, which admission waits for, keeps its priority. `restore` gives every process
 * its own mask and niceness back.
 */
export function isolateEdgeCpu(cpu: number): { readonly moved: number; restore(): void } {
  const masks = new Map<number, string>();
  for (const pid of userProcesses()) {
    const mask = affinityMask(pid);
    if (mask === null) continue;
    masks.set(pid, mask);
    setAffinity(pid, ['-c', String(cpu)]);
  }
  const postgres = pidsByCommand('postgres');
  const postgresNice = postgres.length > 0 ? niceness(postgres[0]!) : null;
  const postgresMask = postgres.length > 0 ? masks.get(postgres[0]!) : undefined;
  if (postgresNice !== null) for (const pid of postgres) renice(pid, LOG_PIPELINE_NICE);
  return {
    moved: masks.size,
    restore: () => {
      for (const [pid, mask] of masks) setAffinity(pid, [mask]);
      // Backends forked during the run took the postmaster's pinned mask and niceness.
      for (const pid of pidsByCommand('postgres')) {
        if (postgresMask !== undefined && !masks.has(pid)) setAffinity(pid, [postgresMask]);
        if (postgresNice !== null) renice(pid, postgresNice);
      }
    },
  };
}
