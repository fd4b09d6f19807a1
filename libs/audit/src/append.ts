import { type Kysely, sql } from 'kysely';
import { type AuditEventRow, type Database } from '#libs/db';
import { auditHash, GENESIS_HASH } from './chain.js';
import { type AuditEvent, auditFields } from './event.js';

/**
 * The advisory lock every append takes for the rest of its transaction: appends queue on it, so
 * each reads the hash the previous one committed and the chain never forks. (A constant of our
 * own: `audit_events` as ASCII, read as a 64-bit integer.)
 */
export const AUDIT_CHAIN_LOCK = 0x61756469745f6576n;

/**
 * Appends one event to the chain and returns its row. Given a transaction, it is part of it (the
 * change and its record commit or roll back together, and the chain stays locked until then);
 * given the pool, it runs in a transaction of its own.
 */
export async function appendAuditEvent(db: Kysely<Database>, event: AuditEvent): Promise<AuditEventRow> {
  if (db.isTransaction) return appendLocked(db, event);
  return db.transaction().execute((trx) => appendLocked(trx, event));
}

async function appendLocked(trx: Kysely<Database>, event: AuditEvent): Promise<AuditEventRow> {
  await sql`select pg_advisory_xact_lock(${AUDIT_CHAIN_LOCK.toString()}::bigint)`.execute(trx);
  const last = await trx
    .selectFrom('audit_events')
    .select('hash')
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst();
  // Stamped under the lock, so `at` never goes backwards along the chain.
  const fields = auditFields(event, new Date());
  const prevHash = last?.hash ?? GENESIS_HASH;
  return trx
    .insertInto('audit_events')
    .values({
      ...fields,
      before: fields.before === null ? null : JSON.stringify(fields.before),
      after: fields.after === null ? null : JSON.stringify(fields.after),
      prev_hash: prevHash,
      hash: auditHash(fields, prevHash),
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}
