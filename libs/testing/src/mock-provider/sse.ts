import type { ServerResponse } from 'node:http';

/** `data: {...}` framing (OpenAI chat and completions streams). */
export function dataFrame(payload: unknown): string {
  return `data: ${JSON.stringify(payload)}\n\n`;
}

/** `event: name` + `data: {...}` framing (OpenAI Responses and Anthropic streams). */
export function eventFrame(event: string, payload: unknown): string {
  return `event: ${event}\ndata: ${JSON.stringify(payload)}\n\n`;
}

export const DONE_FRAME = 'data: [DONE]\n\n';

export interface StreamTiming {
  readonly ttftMs: number;
  readonly intervalMs: number;
  /** Destroy the socket after this many writes instead of finishing. */
  readonly resetAfter: number | null;
}

/**
 * Writes an SSE stream with the vendor's timing: headers now, the first write after `ttftMs`,
 * the rest `intervalMs` apart. Stops quietly when the client goes away.
 */
export function writeSse(
  res: ServerResponse,
  headers: Record<string, string>,
  writes: readonly string[],
  timing: StreamTiming,
): void {
  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
    ...headers,
  });
  if (timing.ttftMs > 0) res.flushHeaders(); // headers now, first chunk after ttft
  const limit = timing.resetAfter === null ? writes.length : Math.min(writes.length, timing.resetAfter);
  let next = 0;
  let timer: NodeJS.Timeout | undefined;
  const finish = (): void => {
    if (timing.resetAfter === null) res.end();
    else res.write('\n', () => res.destroy()); // destroy once the chunks before are flushed
  };
  const step = (): void => {
    timer = undefined;
    if (res.destroyed) return;
    if (timing.intervalMs === 0) {
      // No pacing: everything goes out in one corked burst (one writev, not one syscall per chunk).
      res.cork();
      while (next < limit) res.write(writes[next++] as string);
      res.uncork();
    } else {
      res.write(writes[next++] as string);
    }
    if (next >= limit) return finish();
    timer = setTimeout(step, timing.intervalMs);
  };
  res.on('close', () => {
    if (timer) clearTimeout(timer);
  });
  if (timing.ttftMs > 0) timer = setTimeout(step, timing.ttftMs);
  else step();
}
