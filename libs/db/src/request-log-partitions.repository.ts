import { type Kysely, sql } from 'kysely';
import { type Database } from './database.js';
import {
  type LogPartition,
  logPartitionsAround,
  parseLogPartitionName,
  REQUEST_LOGS_DEFAULT_PARTITION,
} from './log-partitions.js';

/** Serializes partition maintenance across worker replicas and the migration. */
const PARTITION_LOCK_KEY = 7_340_021_001;

function inTransaction<T>(db: Kysely<Database>, fn: (trx: Kysely<Database>) => Promise<T>): Promise<T> {
  return db.isTransaction ? fn(db) : db.transaction().execute(fn);
}

async function partitionExists(trx: Kysely<Database>, name: string): Promise<boolean> {
  const { rows } = await sql<{ found: boolean }>`select to_regclass(${name}) is not null as found`.execute(
    trx,
  );
  return rows[0]?.found === true;
}

/**
 * Creates one monthly partition. Rows of that month that already landed in the DEFAULT partition
 * (the worker was down at month start, or a job carried an odd timestamp) are moved into it in
 * the same transaction: Postgres refuses to create a partition whose range the default holds.
 */
async function createPartition(trx: Kysely<Database>, p: LogPartition): Promise<void> {
  const from = p.from.toISOString();
  const to = p.to.toISOString();
  const stray = sql`${sql.table(REQUEST_LOGS_DEFAULT_PARTITION)} where started_at >= ${from}::timestamptz and started_at < ${to}::timestamptz`;
  const { rows } = await sql<{ n: string }>`select count(*) as n from ${stray}`.execute(trx);
  const moving = Number(rows[0]?.n ?? 0) > 0;
  if (moving) {
    await sql`create temporary table request_logs_moving (like request_logs) on commit drop`.execute(trx);
    await sql`with moved as (delete from ${stray} returning *) insert into request_logs_moving select * from moved`.execute(
      trx,
    );
  }
  await sql`create table ${sql.table(p.name)} partition of request_logs
    for values from (${sql.lit(from)}) to (${sql.lit(to)})`.execute(trx);
  if (moving) {
    await sql`insert into request_logs select * from request_logs_moving`.execute(trx);
    await sql`drop table request_logs_moving`.execute(trx);
  }
}

/**
 * Makes sure the monthly request_logs partitions exist for the month of `now` and the
 * `monthsAhead` next ones. Idempotent; returns the names it created. Runs in the caller's
 * transaction when given one (the migration), else in its own.
 */
export function ensureLogPartitions(db: Kysely<Database>, now: Date, monthsAhead: number): Promise<string[]> {
  return inTransaction(db, async (trx) => {
    await sql`select pg_advisory_xact_lock(${PARTITION_LOCK_KEY})`.execute(trx);
    const created: string[] = [];
    for (const p of logPartitionsAround(now, monthsAhead)) {
      if (await partitionExists(trx, p.name)) continue;
      await createPartition(trx, p);
      created.push(p.name);
    }
    return created;
  });
}

/** The monthly partitions attached to request_logs, oldest first. */
export async function listLogPartitions(db: Kysely<Database>): Promise<LogPartition[]> {
  const { rows } = await sql<{ name: string }>`
    select c.relname as name from pg_inherits i
    join pg_class c on c.oid = i.inhrelid
    where i.inhparent = 'request_logs'::regclass`.execute(db);
  return rows
    .map((r) => parseLogPartitionName(r.name))
    .filter((p): p is LogPartition => p !== null)
    .sort((a, b) => a.from.getTime() - b.from.getTime());
}

/**
 * Retention: drops every monthly partition that ends at or before `cutoff`. Returns the names
 * dropped. Whole months go at once, so this is cheap compared with deleting rows.
 */
export function dropLogPartitionsBefore(db: Kysely<Database>, cutoff: Date): Promise<string[]> {
  return inTransaction(db, async (trx) => {
    await sql`select pg_advisory_xact_lock(${PARTITION_LOCK_KEY})`.execute(trx);
    const dropped: string[] = [];
    for (const p of await listLogPartitions(trx)) {
      if (p.to.getTime() > cutoff.getTime()) continue;
      await sql`drop table ${sql.table(p.name)}`.execute(trx);
      dropped.push(p.name);
    }
    return dropped;
  });
}
