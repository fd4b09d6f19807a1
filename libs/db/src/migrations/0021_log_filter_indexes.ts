import { type Kysely, sql } from 'kysely';

// Frozen once released, like every migration: an untyped handle, no imports from the live schema.
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- kysely's documented migration signature
type Db = Kysely<any>;

/**
 * Indexes for every filter of the console's log views (issue 40; docs/operations.md, "Request
 * log indexes"). Each ends in the keyset order the list reads, (started_at desc, request_id desc),
 * so a filter that matches few rows reads only those rows instead of every partition. Composites
 * lead with the account a member's or team's view always adds. Status indexes skip the 200s and
 * team ones the rows of no team: each log insert pays only for the indexes its row belongs in.
 */
const INDEXES: readonly (readonly [name: string, definition: string])[] = [
  ['request_logs_model_started_idx', '(model, started_at desc, request_id desc)'],
  ['request_logs_status_started_idx', '(status, started_at desc, request_id desc) where status <> 200'],
  ['request_logs_user_model_started_idx', '(user_id, model, started_at desc, request_id desc)'],
  [
    'request_logs_user_status_started_idx',
    '(user_id, status, started_at desc, request_id desc) where status <> 200',
  ],
  ['request_logs_team_started_idx', '(team_id, started_at desc, request_id desc) where team_id is not null'],
  [
    'request_logs_team_user_started_idx',
    '(team_id, user_id, started_at desc, request_id desc) where team_id is not null',
  ],
  [
    'request_logs_team_model_started_idx',
    '(team_id, model, started_at desc, request_id desc) where team_id is not null',
  ],
  [
    'request_logs_team_status_started_idx',
    '(team_id, status, started_at desc, request_id desc) where team_id is not null and status <> 200',
  ],
];

/**
 * Partitions up to this heap size get their indexes here, inside the migration's transaction
 * (about a second of blocked log inserts each, on a small machine). Larger ones are left to
 * `completeLogIndexes`, which `npm run migrate` runs after the migrations, outside any transaction,
 * with CREATE INDEX CONCURRENTLY: the worker keeps writing meanwhile.
 */
const BUILD_IN_TRANSACTION_BYTES = 32 * 1024 * 1024;

/**
 * Each index is created ON ONLY the parent (instant; invalid until every partition has its
 * own), then built and attached on each small partition. New partitions get every index as they
 * are created, invalid parent or not.
 */
export async function up(db: Db): Promise<void> {
  const { rows: partitions } = await sql<{ name: string; bytes: string }>`
    select c.relname as name, pg_relation_size(c.oid)::text as bytes
    from pg_inherits i join pg_class c on c.oid = i.inhrelid
    where i.inhparent = 'request_logs'::regclass
    order by c.relname`.execute(db);
  const small = partitions.filter((p) => Number(p.bytes) <= BUILD_IN_TRANSACTION_BYTES);
  for (const [name, definition] of INDEXES) {
    await sql.raw(`create index ${name} on only request_logs ${definition}`).execute(db);
    for (const p of small) {
      const child = `${p.name}_${name.replace(/^request_logs_/, '')}`;
      await sql.raw(`create index "${child}" on "${p.name}" ${definition}`).execute(db);
      await sql.raw(`alter index ${name} attach partition "${child}"`).execute(db);
    }
  }
}

export async function down(db: Db): Promise<void> {
  for (const [name] of INDEXES) await sql.raw(`drop index if exists ${name}`).execute(db);
}
