import { type Kysely, sql } from 'kysely';

// Frozen once released, like every migration: an untyped handle, no imports from the live schema.
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- kysely's documented migration signature
type Db = Kysely<any>;

/**
 * The audit trail: one row per change made through the console or its API, and per refusal
 * (failed sign-in, a caller without the right). Append-only in the database itself: REVOKE does
 * not bind the table's owner (the role the apps connect as), a trigger does, so UPDATE, DELETE and
 * TRUNCATE raise for everyone until a superuser disables the trigger on purpose (archiving,
 * docs/operations.md). Each row carries the SHA-256 of its fields and of the previous row's hash
 * (libs/audit), so a row removed or altered behind the trigger's back breaks the chain.
 */
export async function up(db: Db): Promise<void> {
  await db.schema
    .createTable('audit_events')
    .addColumn('id', 'bigserial', (c) => c.primaryKey())
    .addColumn('at', 'timestamptz', (c) => c.notNull())
    .addColumn('actor_kind', 'text', (c) =>
      c.notNull().check(sql`actor_kind in ('user', 'token', 'anonymous', 'system')`),
    )
    .addColumn('actor_id', 'text')
    .addColumn('actor_email', 'text')
    .addColumn('actor_token_name', 'text')
    .addColumn('ip', 'text')
    .addColumn('user_agent', 'text')
    .addColumn('action', 'text', (c) => c.notNull())
    .addColumn('target_type', 'text')
    .addColumn('target_id', 'text')
    .addColumn('before', 'jsonb')
    .addColumn('after', 'jsonb')
    .addColumn('outcome', 'text', (c) => c.notNull().check(sql`outcome in ('ok', 'refused')`))
    .addColumn('reason', 'text')
    .addColumn('prev_hash', 'text', (c) => c.notNull())
    .addColumn('hash', 'text', (c) => c.notNull().unique())
    .execute();
  await db.schema
    .createIndex('audit_events_action_idx')
    .on('audit_events')
    .columns(['action', 'id'])
    .execute();
  await db.schema
    .createIndex('audit_events_actor_idx')
    .on('audit_events')
    .columns(['actor_email', 'id'])
    .execute();
  await db.schema
    .createIndex('audit_events_target_idx')
    .on('audit_events')
    .columns(['target_id', 'id'])
    .execute();
  await db.schema.createIndex('audit_events_at_idx').on('audit_events').column('at').execute();
  await sql`
    create function audit_events_append_only() returns trigger language plpgsql as $$
    begin
      raise exception 'audit_events is append-only: % refused', tg_op using errcode = 'insufficient_privilege';
    end $$`.execute(db);
  await sql`
    create trigger audit_events_no_update_delete before update or delete on audit_events
    for each row execute function audit_events_append_only()`.execute(db);
  await sql`
    create trigger audit_events_no_truncate before truncate on audit_events
    for each statement execute function audit_events_append_only()`.execute(db);
}

export async function down(db: Db): Promise<void> {
  await db.schema.dropTable('audit_events').execute();
  await sql`drop function audit_events_append_only()`.execute(db);
}
