/**
 * The longest the event loop went without running a timer while `work` ran, in ms: what a
 * request running alongside would have waited. Work done before its first `await` counts too.
 */
export async function longestStallDuring<T>(work: () => Promise<T>): Promise<{ result: T; stallMs: number }> {
  let last = performance.now();
  let longest = 0;
  const tick = (): void => {
    const now = performance.now();
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
