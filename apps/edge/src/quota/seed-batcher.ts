/**
 * Loads cold accounts' balances from Postgres into Redis in batches. A burst of new accounts (the
 * scale probe's 1,000 first requests at once) used to run one seed transaction per account: each
 * held one of the edge's ten pooled connections for six statements and two Redis calls, so the
 * accounts queued for the pool and were served at 450 requests a second against 2,265 warm. Here
 * the accounts asked for while a batch is out wait for the next one and go in one transaction
 * (`load`'s function takes them all: rebuildQuotas locks their rows in id order, as the periodic
 * refresh does). An idle edge's cold account still starts its batch at once: nothing waits for a
 * batch to fill.
 */
export class SeedBatcher {
  /** Accounts waiting for the next batch, each with the promise its callers share. */
  private waiting = new Map<string, Deferred>();
  /** Accounts in a batch on the wire: a second cold request of theirs shares it. */
  private readonly loading = new Map<string, Promise<void>>();
  private inFlight = 0;

  constructor(
    private readonly load: (accounts: readonly string[]) => Promise<unknown>,
    private readonly maxInFlight = 2,
    private readonly maxBatch = 500,
  ) {}

  /** Resolves once the account's balance was loaded (or found loaded); rejects with the batch. */
  seed(account: string): Promise<void> {
    const running = this.loading.get(account) ?? this.waiting.get(account)?.promise;
    if (running !== undefined) return running;
    const deferred = defer();
    this.waiting.set(account, deferred);
    this.flush();
    return deferred.promise;
  }

  private flush(): void {
    while (this.inFlight < this.maxInFlight && this.waiting.size > 0) {
      const batch = new Map<string, Deferred>();
      for (const [account, deferred] of this.waiting) {
        if (batch.size >= this.maxBatch) break;
        batch.set(account, deferred);
      }
      for (const account of batch.keys()) this.waiting.delete(account);
      this.run(batch);
    }
  }

  private run(batch: Map<string, Deferred>): void {
    this.inFlight++;
    for (const [account, deferred] of batch) this.loading.set(account, deferred.promise);
    this.load([...batch.keys()])
      .then(
        () => {
          for (const d of batch.values()) d.resolve();
        },
        (err: unknown) => {
          for (const d of batch.values()) d.reject(err);
        },
      )
      .finally(() => {
        for (const account of batch.keys()) this.loading.delete(account);
        this.inFlight--;
        this.flush();
      });
  }
}

interface Deferred {
  readonly promise: Promise<void>;
  resolve(): void;
  reject(err: unknown): void;
}

function defer(): Deferred {
  let resolve!: () => void;
  let reject!: (err: unknown) => void;
  const promise = new Promise<void>((ok, fail) => {
    resolve = ok;
    reject = fail;
  });
  // A batch that fails rejects every waiter; one whose caller already gave up must not be unhandled.
  promise.catch(() => undefined);
  return { promise, resolve, reject };
}
