import { existsSync, readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { type Started } from './processes.js';
import { type Cell, type WorkloadContext, waitForDrain } from './workloads.js';
import { runWrk, type WrkResult } from './wrk.js';

export interface ProfiledRun<P> {
  /** The profile as the hook wrote it (a .cpuprofile or a .heapprofile). */
  readonly profile: P;
  readonly wrk: WrkResult;
}

const WRITE_TIMEOUT_MS = 30_000;

async function waitForFile(path: string): Promise<void> {
  const deadline = Date.now() + WRITE_TIMEOUT_MS;
  while (!existsSync(path)) {
    if (Date.now() > deadline) throw new Error(`the profiled edge wrote no profile to ${path}`);
    await sleep(100);
  }
}

/**
 * One counted run against an edge started with the profile hook (see profile-hook.ts): warm-up
 * unprofiled, then SIGUSR2 around the counted run.
 */
export async function profiledRun<P>(
  ctx: WorkloadContext,
  edge: Started,
  cell: Cell,
  profileFile: string,
): Promise<ProfiledRun<P>> {
  const run = {
    url: `${ctx.urls.gateway}/v1/chat/completions`,
    connections: cell.concurrency,
    bodyFile: ctx.bodyFiles[cell.mode],
    apiKey: ctx.apiKey,
  };
  await waitForDrain(ctx);
  await runWrk(ctx.group, { ...run, seconds: ctx.settings.warmupSeconds });
  process.kill(edge.pid, 'SIGUSR2');
  const wrk = await runWrk(ctx.group, { ...run, seconds: ctx.settings.durationSeconds });
  process.kill(edge.pid, 'SIGUSR2');
  await waitForFile(profileFile);
  return { profile: JSON.parse(readFileSync(profileFile, 'utf8')) as P, wrk };
}
