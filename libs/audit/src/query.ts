import { type Kysely, type SelectQueryBuilder, sql } from 'kysely';
import { type AuditEventRow, type Database } from '#libs/db';

/** What the console filters on; every one optional, all of them together (AND). */
export interface AuditFilter {
  /** An email (any case), a user id or a token name. */
  readonly actor?: string | undefined;
  /** An action (`user.create`) or a family (`user`: every `user.*`). */
  readonly action?: string | undefined;
  /** A target id, or a target type (`user`, `key`, `config`). */
  readonly target?: string | undefined;
  readonly outcome?: 'ok' | 'refused' | undefined;
  readonly from?: Date | undefined;
  readonly to?: Date | undefined;
}

type Query = SelectQueryBuilder<Database, 'audit_events', AuditEventRow>;

function filtered(db: Kysely<Database>, f: AuditFilter): Query {
  let q = db.selectFrom('audit_events').selectAll();
  const { actor, action, target } = f;
  if (actor !== undefined)
    q = q.where((eb) =>
      eb.or([
        eb(sql<string>`lower(actor_email)`, '=', actor.toLowerCase()),
        eb('actor_id', '=', actor),
        eb('actor_token_name', '=', actor),
      ]),
    );
  if (action !== undefined)
    q = q.where((eb) => eb.or([eb('action', '=', action), eb('action', 'like', `${escapeLike(action)}.%`)]));
  if (target !== undefined)
    q = q.where((eb) => eb.or([eb('target_id', '=', target), eb('target_type', '=', target)]));
  if (f.outcome !== undefined) q = q.where('outcome', '=', f.outcome);
  if (f.from !== undefined) q = q.where('at', '>=', f.from);
  if (f.to !== undefined) q = q.where('at', '<', f.to);
  return q;
}

const escapeLike = (s: string): string => s.replace(/[\\%_]/g, (c) => `\\${c}`);

/**
 * One page, newest first, by keyset: `before` is the last id of the previous page. `next` is the
 * cursor of the following page, null on the last one.
 */
export async function listAuditEvents(
  db: Kysely<Database>,
  filter: AuditFilter,
  page: { readonly before?: string | undefined; readonly limit: number },
): Promise<{ events: AuditEventRow[]; next: string | null }> {
  let q = filtered(db, filter)
    .orderBy('id', 'desc')
    .limit(page.limit + 1);
  if (page.before !== undefined) q = q.where('id', '<', page.before);
  const rows = await q.execute();
  const events = rows.slice(0, page.limit);
  return { events, next: rows.length > page.limit ? events.at(-1)!.id : null };
}

/** Every matching event in chain order, a batch at a time (for a streamed export). */
export async function* scanAuditEvents(
  db: Kysely<Database>,
  filter: AuditFilter,
  batch = 500,
): AsyncGenerator<AuditEventRow> {
  let after: string | null = null;
  for (;;) {
    let q = filtered(db, filter).orderBy('id').limit(batch);
    if (after !== null) q = q.where('id', '>', after);
    const rows = await q.execute();
    yield* rows;
    if (rows.length < batch) return;
    after = rows.at(-1)!.id;
  }
}
