import { Inject, Injectable, Logger } from '@nestjs/common';
import { Kysely } from 'kysely';
import {
  type Database,
  insertCharges,
  insertRequestLogs,
  type StorableLog,
  teamsOfKeys,
  touchLastUsed,
} from '#libs/db';
import { keyAccountSlot } from '#libs/quota';
import { PendingCharges } from '../quota/pending-charges.service.js';
import { DB } from '../tokens.js';
import { chargesOf, isDataError, lastUsedByKey } from './settlement.js';

function toError(err: unknown): Error {
  return err instanceof Error ? err : new Error(String(err));
}

/** Writes batches of request logs and settles their charges in Postgres. */
@Injectable()
export class RequestLogWriter {
  private readonly logger = new Logger(RequestLogWriter.name);

  constructor(
    @Inject(DB) private readonly db: Kysely<Database>,
    private readonly pending: PendingCharges,
  ) {}

  /**
   * One transaction per batch: logs, charges, balance debits and last_used_at commit together
   * or not at all, and every write skips request ids already stored. Returns one outcome per job.
   * Throws (failing the whole batch, to be retried) when Postgres itself is the problem.
   */
  async writeBatch(jobs: readonly StorableLog[]): Promise<Array<Error | null>> {
    try {
      await this.commit(jobs);
      return jobs.map(() => null);
    } catch (err) {
      if (jobs.length === 1 || !isDataError(err)) throw err;
      // One bad row (say, a charge for a user that does not exist) must not hold the whole batch
      // hostage: write each job alone so only the bad one fails and retries.
      this.logger.warn(
        `batch of ${jobs.length} rejected (${toError(err).message}); writing its jobs one by one`,
      );
      const outcomes: Array<Error | null> = [];
      for (const job of jobs) outcomes.push(await this.commit([job]).then(() => null, toError));
      return outcomes;
    }
  }

  /**
   * The quota accounts (slots, see keyAccountSlot) these logs were charged to: their users', or
   * their keys' teams'. The cut-stream sweep rebuilds these copies after writing its estimates.
   */
  async accountsOf(jobs: readonly StorableLog[]): Promise<string[]> {
    const teams = await this.teamsOf(this.db, jobs);
    const slots = new Set<string>();
    for (const j of jobs) {
      if (j.userId === null) continue;
      slots.add(keyAccountSlot({ userId: j.userId, teamId: j.keyId === null ? null : teams.get(j.keyId) }));
    }
    return [...slots];
  }

  private async commit(jobs: readonly StorableLog[]): Promise<void> {
    const charges = await this.db.transaction().execute(async (trx) => {
      // A team key's logs and charges carry its team, which pays (docs/teams.md).
      const teams = await this.teamsOf(trx, jobs);
      const charges = chargesOf(jobs, teams);
      await insertRequestLogs(trx, jobs, teams);
      if (charges.length > 0) await insertCharges(trx, charges);
      await touchLastUsed(trx, lastUsedByKey(jobs));
      return charges;
    });
    // Only once committed: a charge leaves the edges' pending set when Postgres holds it.
    this.pending.settled(charges);
  }

  /** Key id -> team of the jobs' team keys (a key's team is fixed at its creation). */
  private teamsOf(db: Kysely<Database>, jobs: readonly StorableLog[]): Promise<Map<string, string>> {
    const keyIds = jobs.flatMap((j) => (j.keyId === null ? [] : [j.keyId]));
    return keyIds.length === 0 ? Promise.resolve(new Map()) : teamsOfKeys(db, keyIds);
  }
}
