export interface Stoppable {
  readonly name: string;
  /** Lower stops first. Front doors stop before what they call, so in-flight work can finish. */
  readonly stopOrder: number;
}

/** Groups children into the stages a graceful shutdown walks through, first stage first. */
export function shutdownStages<T extends Stoppable>(children: readonly T[]): T[][] {
  const orders = [...new Set(children.map((c) => c.stopOrder))].sort((a, b) => a - b);
  return orders.map((order) => children.filter((c) => c.stopOrder === order));
}

export interface ExitInfo {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

export function describeExit({ code, signal }: ExitInfo): string {
  if (signal) return `was killed by ${signal}`;
  return `exited with code ${code ?? 'unknown'}`;
}

/** Resolves with whatever settles first: the promise, or `fallback` after `ms`. */
export async function withDeadline<T>(promise: Promise<T>, ms: number, fallback: T): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<T>((resolve) => {
    timer = setTimeout(() => resolve(fallback), Math.max(0, ms));
  });
  try {
    return await Promise.race([promise, deadline]);
  } finally {
    clearTimeout(timer);
  }
}
