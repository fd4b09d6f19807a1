/** Polls a synchronous check every 10 ms until it returns a truthy value, or fails after `timeoutMs`. */
export async function until<T>(
  check: () => T | undefined | null | false,
  timeoutMs: number,
  what: string,
): Promise<T> {
  const started = Date.now();
  for (;;) {
    const value = check();
    if (value) return value;
    if (Date.now() - started > timeoutMs) throw new Error(`${what}: not within ${timeoutMs}ms`);
    await new Promise((r) => setTimeout(r, 10));
  }
}
