import { execFileSync } from 'node:child_process';
import { pidsByCommand } from './proc-stats.js';

/** The machine's shared services the gateway's pipeline uses, by command name. */
export const SHARED_SERVICES = ['redis-server', 'postgres'] as const;

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
    // gone since it was listed
  }
}

/**
 * Moves every thread of Redis and Postgres (and, through the postmaster, every backend it forks
 * later) onto `cpu`, so that the edge's CPU runs the edge alone: left floating, they took the
 * edge's CPU in the middle of its requests, which showed as event-loop stalls and a millisecond
 * tail no change in the edge could remove. `restore` gives each service back its own mask.
 */
export function pinSharedServices(cpu: number): { readonly pinned: number; restore(): void } {
  const masks = new Map<string, string>();
  let pinned = 0;
  for (const comm of SHARED_SERVICES) {
    const pids = pidsByCommand(comm);
    const mask = pids.length > 0 ? affinityMask(pids[0]!) : null;
    if (mask === null) continue;
    masks.set(comm, mask);
    for (const pid of pids) setAffinity(pid, ['-c', String(cpu)]);
    pinned += pids.length;
  }
  return {
    pinned,
    restore: () => {
      for (const [comm, mask] of masks) for (const pid of pidsByCommand(comm)) setAffinity(pid, [mask]);
    },
  };
}
