import { existsSync, readFileSync, rmSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { type MemoryAtPeak, type RequestTimes, type RuntimeStats } from './runtime-hook.js';

export type { MemoryAtPeak, RequestTimes, RuntimeStats };

const WRITE_TIMEOUT_MS = 10_000;

/** Signals the hook (SIGUSR2) and reads what it wrote: the figures since the previous signal. */
async function snapshot(pid: number, file: string): Promise<RuntimeStats> {
  rmSync(file, { force: true });
  process.kill(pid, 'SIGUSR2');
  const deadline = Date.now() + WRITE_TIMEOUT_MS;
  while (!existsSync(file)) {
    if (Date.now() > deadline) throw new Error(`the edge wrote no runtime figures to ${file}`);
    await sleep(20);
  }
  return JSON.parse(readFileSync(file, 'utf8')) as RuntimeStats;
}

/** Starts counting at once; `stop()` returns the figures of everything since. */
export async function edgeRuntimeSince(
  pid: number,
  file: string,
): Promise<{ stop: () => Promise<RuntimeStats> }> {
  await snapshot(pid, file);
  return { stop: () => snapshot(pid, file) };
}
