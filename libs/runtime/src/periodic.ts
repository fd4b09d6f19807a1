/**
 * A background task on an interval: a run is skipped while the previous one is still going (a
 * slow database must not pile runs up), a failed run is reported and retried at the next tick, and
 * `stop()` ends the timer and waits for the run in progress, so a shutdown never cuts one off.
 */
export class Periodic {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<unknown> | null = null;

  constructor(
    private readonly task: () => Promise<unknown>,
    private readonly onError: (err: Error) => void,
  ) {}

  start(intervalMs: number): void {
    this.timer = setInterval(() => {
      this.running ??= this.task()
        .catch((err: Error) => this.onError(err))
        .finally(() => (this.running = null));
    }, intervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.running;
  }
}
