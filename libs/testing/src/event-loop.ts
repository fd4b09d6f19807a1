/** The main thread's CPU time in ms (Node 23.9+), or null where Node cannot tell it. */
const threadCpuMs: (() => number) | null = (() => {
  const usage = (process as { threadCpuUsage?: () => NodeJS.CpuUsage }).threadCpuUsage;
  if (typeof usage !== 'function') return null;
  return () => {
    const { user, system } = usage.call(process);
    return (user + system) / 1000;
  };
})();

/**
 * The longest the event loop went without running a timer while `work` ran, in ms: what a
 * request running alongside would have waited. Work done before its first `await` counts too.
 *
 * Where Node tells the main thread's CPU time, a gap counts only the CPU the thread used in it:
 * on a loaded machine (CI on 2 cores, other suites running) the OS can leave the whole process
 * waiting for a core for 100 ms and more, which no code of ours holds; work that holds the loop
 * uses the CPU for as long as it holds it.
 */
export async function longestStallDuring<T>(work: () => Promise<T>): Promise<{ result: T; stallMs: number }> {
  const clock = threadCpuMs ?? (() => performance.now());
  let last = clock();
  let longest = 0;
  const tick = (): void => {
    const now = clock();
    longest = Math.max(longest, now - last);
    last = now;
  };
  const timer = setInterval(tick, 5);
  try {
    const result = await work();
    tick();
    return { result, stallMs: longest };
  } finally {
    clearInterval(timer);
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
