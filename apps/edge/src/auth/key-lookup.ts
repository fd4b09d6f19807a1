import { type Kysely } from 'kysely';
import { type KeyRecord } from '#libs/auth';
import { type ApiKeyWithBudgets, type BudgetRow, type Database, findApiKeysByHashes } from '#libs/db';
import { budgetOfRow } from '#libs/quota';
import { type KeyLookup } from './key-resolver.service.js';

/** At most this many hashes a statement; more wait for the next one. */
const MAX_HASHES_PER_LOOKUP = 500;
/** Statements out at once: the rest of a burst of cold keys waits for one of them to end. */
const MAX_LOOKUPS_IN_FLIGHT = 2;

/**
 * The Postgres end of key resolution, with the key's budgets (its team's for a team key), in one
 * statement. A disabled owner makes the key unusable, and so does a team key whose owner left the
 * team or whose group the team no longer allows. Lookups asked while statements are out share the
 * next one (`= any($1)`): a burst of cold keys costs a few statements, not one (or two) each, and a
 * lone cold key is looked up at once. Each caller gets its own key's record, or null.
 */
export function keyLookupFromDb(db: Kysely<Database>): KeyLookup {
  const batcher = new KeyLookupBatcher((hashes) => findApiKeysByHashes(db, hashes));
  return (hash: string) => batcher.lookup(hash);
}

export function keyRecordOf(row: ApiKeyWithBudgets): KeyRecord {
  const usable = row.status === 'active' && row.user_status === 'active' && row.team_allows;
  return {
    id: row.id,
    userId: row.user_id,
    group: row.group_name,
    status: usable ? 'active' : 'revoked',
    expiresAt: row.expires_at ? row.expires_at.toISOString() : null,
    spendLimitNanos: row.spend_limit_nanos,
    rpmLimit: row.rpm_limit,
    tpmLimit: row.tpm_limit,
    budgets: row.budgets.map((b) => budgetOfRow(b as BudgetRow)),
    teamId: row.team_id,
  };
}

interface Waiter {
  readonly resolve: (record: KeyRecord | null) => void;
  readonly reject: (err: unknown) => void;
}

/** Hashes waiting for the next statement, each with its callers; at most two statements out. */
export class KeyLookupBatcher {
  private waiting = new Map<string, Waiter[]>();
  private inFlight = 0;

  constructor(
    private readonly find: (hashes: readonly string[]) => Promise<readonly ApiKeyWithBudgets[]>,
    private readonly maxInFlight = MAX_LOOKUPS_IN_FLIGHT,
    private readonly maxBatch = MAX_HASHES_PER_LOOKUP,
  ) {}

  lookup(hash: string): Promise<KeyRecord | null> {
    return new Promise((resolve, reject) => {
      const waiters = this.waiting.get(hash);
      if (waiters) waiters.push({ resolve, reject });
      else this.waiting.set(hash, [{ resolve, reject }]);
      this.flush();
    });
  }

  private flush(): void {
    while (this.inFlight < this.maxInFlight && this.waiting.size > 0) {
      let batch = this.waiting;
      if (batch.size > this.maxBatch) {
        batch = new Map([...this.waiting].slice(0, this.maxBatch));
        for (const hash of batch.keys()) this.waiting.delete(hash);
      } else {
        this.waiting = new Map();
      }
      this.run(batch);
    }
  }

  private run(batch: Map<string, Waiter[]>): void {
    this.inFlight++;
    this.find([...batch.keys()])
      .then(
        (rows) => {
          const byHash = new Map(rows.map((row) => [row.key_hash, row]));
          for (const [hash, waiters] of batch) {
            const row = byHash.get(hash);
            const record = row === undefined ? null : keyRecordOf(row);
            for (const w of waiters) w.resolve(record);
          }
        },
        (err: unknown) => {
          for (const waiters of batch.values()) for (const w of waiters) w.reject(err);
        },
      )
      .finally(() => {
        this.inFlight--;
        this.flush();
      });
  }
}
