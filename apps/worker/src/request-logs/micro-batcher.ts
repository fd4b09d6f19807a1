export interface MicroBatcherOptions<T> {
  /** A batch is written as soon as this many items wait. */
  readonly maxSize: number;
  /** ...or this long after the first item of a batch arrived. */
  readonly maxWaitMs: number;
  /**
   * Writes one batch. Returns one outcome per item, in order (null = durable, an Error = that
   * item failed); throwing fails every item of the batch.
   */
  readonly write: (items: readonly T[]) => Promise<ReadonlyArray<Error | null>>;
}

interface Waiting<T> {
  readonly item: T;
  readonly resolve: () => void;
  readonly reject: (err: Error) => void;
}

function toError(err: unknown): Error {
  return err instanceof Error ? err : new Error(String(err));
}

/**
 * Groups single items into batches by size or time. Each `add` settles only when its batch was
 * written, so a caller (a BullMQ job) completes only after its rows are durable.
 */
export class MicroBatcher<T> {
  private waiting: Waiting<T>[] = [];
  private timer: NodeJS.Timeout | null = null;
  private readonly writing = new Set<Promise<void>>();

  constructor(private readonly opts: MicroBatcherOptions<T>) {}

  /** Items waiting for the next batch. */
  get pending(): number {
    return this.waiting.length;
  }

  /** Batches being written right now. */
  get inFlight(): number {
    return this.writing.size;
  }

  add(item: T): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.waiting.push({ item, resolve, reject });
      if (this.waiting.length >= this.opts.maxSize) this.flush();
      else this.timer ??= setTimeout(() => this.flush(), this.opts.maxWaitMs);
    });
  }

  /** Writes what waits now and resolves once every batch in flight has settled. */
  async drain(): Promise<void> {
    this.flush();
    await Promise.allSettled([...this.writing]);
  }

  /** Writes what waits now, without waiting for size or time (say, when no more items can come). */
  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (this.waiting.length === 0) return;
    const batch = this.waiting;
    this.waiting = [];
    const done: Promise<void> = this.write(batch).finally(() => this.writing.delete(done));
    this.writing.add(done);
  }

  private async write(batch: readonly Waiting<T>[]): Promise<void> {
    try {
      const outcomes = await this.opts.write(batch.map((w) => w.item));
      batch.forEach((w, i) => {
        const err = outcomes[i];
        if (err) w.reject(err);
        else if (err === null) w.resolve();
        else w.reject(new Error(`batch writer returned no outcome for item ${i}`));
      });
    } catch (err) {
      const e = toError(err);
      for (const w of batch) w.reject(e);
    }
  }
}
