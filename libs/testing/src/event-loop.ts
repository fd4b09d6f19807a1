import { type PerformanceEntry, PerformanceObserver } from 'node:perf_hooks';

/** The main thread's CPU time in ms (Node 23.9+), or null where Node cannot tell it. */
const threadCpuMs: (() => number) | null = (() => {
  const usage = (process as { threadCpuUsage?: () => NodeJS.CpuUsage }).threadCpuUsage;
  if (typeof usage !== 'function') return null;
  return () => {
    const { user, system } = usage.call(process);
    return (user + system) / 1000;
  };
})();

interface Tick {
  readonly wall: number;
  readonly cpu: number;
}

/** Of each GC pause, the part inside `[from, to)` (wall clock, performance.now()). */
function gcWithin(pauses: readonly PerformanceEntry[], from: number, to: number): number {
  let total = 0;
  for (const p of pauses)
    total += Math.max(0, Math.min(to, p.startTime + p.duration) - Math.max(from, p.startTime));
  return total;
}

/**
 * The longest the event loop went without running a timer while `work` ran, in ms: what a
 * request running alongside would have waited because of `work`. Work done before its first
 * `await` counts too.
 *
 * Two things that hold the loop are not `work`'s, and are left out so that the figure says what
 * the code does, not what the machine did meanwhile:
 * - Where Node tells the main thread's CPU time, a gap counts only the CPU the thread used in it:
 *   on a loaded machine (CI on 2 cores, other suites running) the OS can leave the whole process
 *   waiting for a core for 100 ms and more. Work that holds the loop uses the CPU all along.
 * - GC pauses (the `gc` performance entries inside the gap): a jest worker that has run many
 *   suites has a large old generation, and one mark-compact in it measured 191 ms in CI. The
 *   bench measures GC; here it would make the test depend on what ran before it.
 */
export async function longestStallDuring<T>(work: () => Promise<T>): Promise<{ result: T; stallMs: number }> {
  const pauses: PerformanceEntry[] = [];
  const observer = new PerformanceObserver((list) => pauses.push(...list.getEntries()));
  observer.observe({ entryTypes: ['gc'] });
  const ticks: Tick[] = [];
  const tick = (): void => {
    ticks.push({ wall: performance.now(), cpu: threadCpuMs?.() ?? 0 });
  };
  tick();
  const timer = setInterval(tick, 5);
  try {
    const result = await work();
    tick();
    clearInterval(timer);
    // GC entries are delivered on a later turn of the loop.
    await new Promise((resolve) => setImmediate(resolve));
    pauses.push(...observer.takeRecords());
    let longest = 0;
    for (let i = 1; i < ticks.length; i++) {
      const [a, b] = [ticks[i - 1]!, ticks[i]!];
      const held = threadCpuMs ? b.cpu - a.cpu : b.wall - a.wall;
      longest = Math.max(longest, held - gcWithin(pauses, a.wall, b.wall));
    }
    return { result, stallMs: longest };
  } finally {
    clearInterval(timer);
    observer.disconnect();
  }
}

/**
 * `chars` lowercase letters without a break, from a fixed seed: one "word" the tokenizer cannot
 * split, and unlike a run of one letter, whose pieces are all alike, none of it is in its cache.
 */
export function unbrokenWord(chars: number, seed = 1): string {
  let state = seed;
  const out: string[] = [];
  for (let i = 0; i < chars; i++) {
    state = (state * 1103515245 + 12345) % 2147483648;
    out.push(String.fromCharCode(97 + ((state >>> 16) % 26)));
  }
  return out.join('');
}
