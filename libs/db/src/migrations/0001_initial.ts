import { type Kysely, sql } from 'kysely';
import { ensureLogPartitions } from '../request-log-partitions.repository.js';

// Migrations are frozen history: they take an untyped handle and never change once released.
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- kysely's documented migration signature
type Db = Kysely<any>;

async function createUsers(db: Db): Promise<void> {
  await db.schema
    .createTable('users')
    .addColumn('id', 'uuid', (c) => c.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn('email', 'text', (c) =>
      c
        .notNull()
        .unique()
        .check(sql`email = lower(btrim(email)) and email <> ''`),
    )
    .addColumn('password_hash', 'text')
    .addColumn('role', 'text', (c) =>
      c
        .notNull()
        .defaultTo('user')
        .check(sql`role in ('user', 'admin')`),
    )
    .addColumn('status', 'text', (c) =>
      c
        .notNull()
        .defaultTo('active')
        .check(sql`status in ('active', 'disabled')`),
    )
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
}

async function createApiKeys(db: Db): Promise<void> {
  await db.schema
    .createTable('api_keys')
    .addColumn('id', 'uuid', (c) => c.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn('user_id', 'uuid', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('key_hash', 'char(64)', (c) =>
      c
        .notNull()
        .unique()
        .check(sql`key_hash ~ '^[0-9a-f]{64}$'`),
    )
    .addColumn('display_prefix', 'text', (c) => c.notNull())
    .addColumn('group_name', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) =>
      c
        .notNull()
        .defaultTo('active')
        .check(sql`status in ('active', 'revoked')`),
    )
    .addColumn('expires_at', 'timestamptz')
    .addColumn('spend_limit_nanos', 'bigint', (c) => c.check(sql`spend_limit_nanos >= 0`))
    .addColumn('spent_nanos', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('last_used_at', 'timestamptz')
    .addColumn('revoked_at', 'timestamptz')
    .execute();
  await db.schema.createIndex('api_keys_user_id_idx').on('api_keys').column('user_id').execute();
}

async function createRequestLogs(db: Db): Promise<void> {
  await db.schema
    .createTable('request_logs')
    .addColumn('request_id', 'text', (c) => c.notNull())
    .addColumn('started_at', 'timestamptz', (c) => c.notNull())
    .addColumn('key_id', 'uuid')
    .addColumn('user_id', 'uuid')
    .addColumn('group_name', 'text')
    .addColumn('endpoint', 'text', (c) => c.notNull())
    .addColumn('model', 'text')
    .addColumn('provider_id', 'text')
    .addColumn('upstream_model', 'text')
    .addColumn('stream', 'boolean', (c) => c.notNull())
    .addColumn('status', 'integer', (c) => c.notNull())
    .addColumn('error_code', 'text')
    .addColumn('latency_ms', 'integer', (c) => c.notNull())
    .addColumn('ttft_ms', 'integer')
    .addColumn('input_tokens', 'integer')
    .addColumn('output_tokens', 'integer')
    .addColumn('cached_tokens', 'integer')
    .addColumn('cost_nanos', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('attempts', 'jsonb', (c) => c.notNull().defaultTo(sql`'[]'::jsonb`))
    // The partition key must be part of the primary key; started_at comes from the job, so a
    // redelivered job conflicts on the same pair.
    .addPrimaryKeyConstraint('request_logs_pkey', ['request_id', 'started_at'])
    .modifyEnd(sql`partition by range (started_at)`)
    .execute();
  // Catches every row outside the monthly partitions, so no insert ever fails for want of one.
  await sql`create table request_logs_default partition of request_logs default`.execute(db);
  await sql`create index request_logs_user_started_idx on request_logs (user_id, started_at desc)`.execute(
    db,
  );
  await sql`create index request_logs_key_started_idx on request_logs (key_id, started_at desc)`.execute(db);
}

async function createQuota(db: Db): Promise<void> {
  await db.schema
    .createTable('quota_balances')
    .addColumn('user_id', 'uuid', (c) => c.primaryKey().references('users.id').onDelete('cascade'))
    .addColumn('balance_nanos', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('spent_nanos', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await db.schema
    .createTable('charges')
    .addColumn('request_id', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'uuid', (c) => c.notNull().references('users.id'))
    .addColumn('key_id', 'uuid')
    .addColumn('amount_nanos', 'bigint', (c) => c.notNull().check(sql`amount_nanos >= 0`))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await sql`create index charges_user_created_idx on charges (user_id, created_at desc)`.execute(db);
}

export async function up(db: Db): Promise<void> {
  await createUsers(db);
  await createApiKeys(db);
  await createRequestLogs(db);
  await createQuota(db);
  await ensureLogPartitions(db, new Date(), 1);
}

export async function down(db: Db): Promise<void> {
  for (const table of ['charges', 'quota_balances', 'request_logs', 'api_keys', 'users']) {
    await db.schema.dropTable(table).ifExists().cascade().execute();
  }
}
