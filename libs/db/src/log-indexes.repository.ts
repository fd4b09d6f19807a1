import { type Kysely, sql } from 'kysely';
import { type Database } from './database.js';

interface MissingIndex {
  /** The partitioned index on request_logs. */
  readonly parent: string;
  readonly partition: string;
  /** pg_get_indexdef of the parent: `CREATE INDEX <parent> ON ONLY public.request_logs USING ...`. */
  readonly definition: string;
}

const DEFINITION = /^CREATE INDEX \S+ ON ONLY \S+ (USING .+)$/;

/**
 * Every (index of request_logs, partition) pair where the partition has no index attached to
 * the parent's: what a migration left to this step (0021 builds only small partitions inside its
 * transaction). Unique indexes are never missing (a partition cannot exist without the key).
 */
async function missingIndexes(db: Kysely<Database>): Promise<MissingIndex[]> {
  const { rows } = await sql<MissingIndex>`
    select pi.relname as parent, p.relname as partition, pg_get_indexdef(pi.oid) as definition
    from pg_index x
    join pg_class pi on pi.oid = x.indexrelid
    join pg_inherits pin on pin.inhparent = x.indrelid
    join pg_class p on p.oid = pin.inhrelid
    where x.indrelid = 'request_logs'::regclass and not x.indisunique
      and not exists (
        select 1 from pg_inherits ci join pg_index cx on cx.indexrelid = ci.inhrelid
        where ci.inhparent = pi.oid and cx.indrelid = p.oid)
    order by p.relname, pi.relname`.execute(db);
  return rows;
}

/** `request_logs_p2026_01` + `request_logs_model_started_idx` -> `request_logs_p2026_01_model_started_idx`. */
function childName(m: MissingIndex): string {
  return `${m.partition}_${m.parent.replace(/^request_logs_/, '')}`.slice(0, 63);
}

/**
 * Builds the request_logs indexes a migration left unbuilt on large partitions, one partition at
 * a time with CREATE INDEX CONCURRENTLY (log inserts go on meanwhile), and attaches each to its
 * parent, which becomes valid once every partition has one. Must run outside a transaction.
 * Resumable: an invalid index left by an interrupted build is dropped and built again. Returns
 * the indexes built.
 */
export async function completeLogIndexes(
  db: Kysely<Database>,
  onBuilt: (name: string, ms: number) => void = () => undefined,
): Promise<string[]> {
  const built: string[] = [];
  for (const m of await missingIndexes(db)) {
    const using = DEFINITION.exec(m.definition)?.[1];
    if (!using) throw new Error(`unexpected definition of ${m.parent}: ${m.definition}`);
    const child = childName(m);
    const { rows } = await sql<{ valid: boolean }>`
      select x.indisvalid as valid from pg_index x where x.indexrelid = to_regclass(${child})`.execute(db);
    if (rows[0]?.valid === false) await sql`drop index concurrently ${sql.id(child)}`.execute(db);
    const started = performance.now();
    await sql`create index concurrently if not exists ${sql.id(child)} on ${sql.id(m.partition)} ${sql.raw(using)}`.execute(
      db,
    );
    await sql`alter index ${sql.id(m.parent)} attach partition ${sql.id(child)}`.execute(db);
    onBuilt(child, performance.now() - started);
    built.push(child);
  }
  return built;
}
