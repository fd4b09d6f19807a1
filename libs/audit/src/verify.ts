import { type Kysely, sql } from 'kysely';
import { type AuditEventRow, type Database } from '#libs/db';
import { auditHash, GENESIS_HASH } from './chain.js';
import { type AuditFields } from './event.js';

/** Where the chain breaks: a row whose fields no longer give its hash, or whose predecessor is gone. */
export interface AuditChainBreak {
  readonly id: string;
  /** `altered`: the row's fields were changed; `unlinked`: the row before it was removed or replaced. */
  readonly kind: 'altered' | 'unlinked';
  readonly expected: string;
  readonly found: string;
}

export interface AuditChainStatus {
  readonly ok: boolean;
  readonly checked: number;
  readonly firstId: string | null;
  readonly lastId: string | null;
  /** The first row's prev_hash: the genesis hash, or the checkpoint of an archive (docs/operations.md). */
  readonly anchor: string | null;
  readonly fromGenesis: boolean;
  /** The last row's hash: compare it with a copy kept elsewhere (the OTel log) to see a cut tail. */
  readonly headHash: string | null;
  readonly break: AuditChainBreak | null;
}

const BATCH = 1_000;

export const fieldsOfRow = (row: AuditEventRow): AuditFields => ({
  at: row.at,
  actor_kind: row.actor_kind,
  actor_id: row.actor_id,
  actor_email: row.actor_email,
  actor_token_name: row.actor_token_name,
  ip: row.ip,
  user_agent: row.user_agent,
  action: row.action,
  target_type: row.target_type,
  target_id: row.target_id,
  before: row.before ?? null,
  after: row.after ?? null,
  outcome: row.outcome,
  reason: row.reason,
});

/** A row as verification reads it: `at_us`, the microseconds its `at` holds past the millisecond. */
export type ChainRow = AuditEventRow & { readonly at_us?: number };

/** The first break of a run of rows in chain order, given the hash the run must start from. */
export function firstBreak(rows: readonly ChainRow[], prevHash: string): AuditChainBreak | null {
  let prev = prevHash;
  for (const row of rows) {
    if (row.prev_hash !== prev) return { id: row.id, kind: 'unlinked', expected: prev, found: row.prev_hash };
    const hash = auditHash(fieldsOfRow(row), row.prev_hash, row.at_us ?? 0);
    if (hash !== row.hash) return { id: row.id, kind: 'altered', expected: hash, found: row.hash };
    prev = row.hash;
  }
  return null;
}

/** Walks the whole chain in id order, a batch at a time, and reports the first break. */
export async function verifyAuditChain(db: Kysely<Database>): Promise<AuditChainStatus> {
  let checked = 0;
  let firstId: string | null = null;
  let anchor: string | null = null;
  let prev: ChainRow | null = null;
  for (;;) {
    let q = db
      .selectFrom('audit_events')
      .selectAll()
      // What a Date cannot hold: `at` to the microsecond is hashed (chain.ts, auditInstant).
      .select(sql<number>`(extract(microseconds from at)::int % 1000)`.as('at_us'))
      .orderBy('id')
      .limit(BATCH);
    if (prev) q = q.where('id', '>', prev.id);
    const rows = await q.execute();
    if (rows.length === 0) break;
    firstId ??= rows[0]!.id;
    anchor ??= rows[0]!.prev_hash;
    const broken = firstBreak(rows, prev?.hash ?? anchor);
    if (broken) {
      checked += rows.findIndex((r) => r.id === broken.id);
      return status(checked, firstId, prev?.id ?? null, anchor, prev?.hash ?? null, broken);
    }
    checked += rows.length;
    prev = rows.at(-1)!;
  }
  return status(checked, firstId, prev?.id ?? null, anchor, prev?.hash ?? null, null);
}

function status(
  checked: number,
  firstId: string | null,
  lastId: string | null,
  anchor: string | null,
  headHash: string | null,
  broken: AuditChainBreak | null,
): AuditChainStatus {
  return {
    ok: broken === null,
    checked,
    firstId,
    lastId,
    anchor,
    fromGenesis: anchor === null || anchor === GENESIS_HASH,
    headHash,
    break: broken,
  };
}
