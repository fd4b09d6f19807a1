/** A lease to grant in the same Redis call as an account's load: KEYS and ARGV as leaseCall builds them. */
export interface SeedLease {
  readonly keys: readonly string[];
  readonly args: ReadonlyArray<string | number>;
}

/**
 * Loads the accounts given (with the lease asked for each, if any) and calls `loaded` for each as
 * soon as its Redis copy is written, with its lease's reply (undefined: not granted in the call).
 */
export type SeedLoad = (
  accounts: ReadonlyMap<string, SeedLease | undefined>,
  loaded: (account: string, leaseReply: unknown) => void,
) => Promise<unknown>;

/**
 * Loads cold accounts' balances from Postgres into Redis in batches. A burst of new accounts (the
 * scale probe's 1,000 first requests at once) used to run one seed transaction per account: each
 * held one of the edge's ten pooled connections for six statements and two Redis calls, so the
 * accounts queued for the pool and were served at 450 requests a second against 2,265 warm. Here
 * the accounts asked for while a batch is out wait for the next one and go in one transaction
 * (`load`'s function takes them all: rebuildQuotas locks their rows in id order, as the periodic
 * refresh does). An idle edge's cold account still starts its batch at once: nothing waits for a
 * batch to fill. An account's waiters are answered when its Redis copy is written, not when the
 * batch's transaction commits. The first to ask for an account may bring a lease to be granted in
 * the load's own Redis call, and gets its reply; the others sharing the load get undefined.
 */
export class SeedBatcher {
  /** Accounts waiting for the next batch. */
  private waiting = new Map<string, Seed>();
  /** Accounts in a batch on the wire: a second cold request of theirs shares it. */
  private readonly loading = new Map<string, Seed>();
  private inFlight = 0;

  constructor(
    private readonly load: SeedLoad,
    private readonly maxInFlight = 2,
    private readonly maxBatch = 500,
  ) {}

  /**
   * Resolves once the account's balance was loaded (or found loaded), with the reply of `lease`
   * when it rode in the load (undefined otherwise); rejects with the batch.
   */
  seed(account: string, lease?: SeedLease): Promise<unknown> {
    const running = this.loading.get(account);
    if (running !== undefined) return running.shared;
    const queued = this.waiting.get(account);
    if (queued !== undefined) {
      if (queued.lease !== undefined || lease === undefined) return queued.shared;
      queued.lease = lease;
      return queued.owned;
    }
    const seed = newSeed(lease);
    this.waiting.set(account, seed);
    this.flush();
    return lease === undefined ? seed.shared : seed.owned;
  }

  private flush(): void {
    while (this.inFlight < this.maxInFlight && this.waiting.size > 0) {
      const batch = new Map<string, Seed>();
      for (const [account, seed] of this.waiting) {
        if (batch.size >= this.maxBatch) break;
        batch.set(account, seed);
      }
      for (const account of batch.keys()) this.waiting.delete(account);
      this.run(batch);
    }
  }

  private run(batch: Map<string, Seed>): void {
    this.inFlight++;
    for (const [account, seed] of batch) this.loading.set(account, seed);
    const accounts = new Map([...batch].map(([account, seed]) => [account, seed.lease]));
    const loaded = (account: string, leaseReply: unknown): void => batch.get(account)?.resolve(leaseReply);
    this.load(accounts, loaded)
      .then(
        () => {
          for (const s of batch.values()) s.resolve(undefined);
        },
        (err: unknown) => {
          for (const s of batch.values()) s.reject(err);
        },
      )
      .finally(() => {
        for (const account of batch.keys()) this.loading.delete(account);
        this.inFlight--;
        this.flush();
      });
  }
}

interface Seed {
  lease: SeedLease | undefined;
  /** The first asker's (with the lease's reply). */
  readonly owned: Promise<unknown>;
  /** Everyone else's (undefined once loaded). */
  readonly shared: Promise<undefined>;
  resolve(leaseReply: unknown): void;
  reject(err: unknown): void;
}

function newSeed(lease: SeedLease | undefined): Seed {
  let resolve!: (reply: unknown) => void;
  let reject!: (err: unknown) => void;
  const owned = new Promise<unknown>((ok, fail) => {
    resolve = ok;
    reject = fail;
  });
  const shared = owned.then(() => undefined);
  // A batch that fails rejects every waiter; one whose caller already gave up must not be unhandled.
  owned.catch(() => undefined);
  shared.catch(() => undefined);
  return { lease, owned, shared, resolve, reject };
}
