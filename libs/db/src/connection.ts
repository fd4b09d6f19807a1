import { redactUrl } from '#libs/config';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { type Database } from './database.js';

export interface DbOptions {
  /** Pool size. 10 suits one app replica; total across replicas must stay under max_connections. */
  readonly poolSize?: number;
  /** Shown in pg_stat_activity. */
  readonly applicationName?: string;
  /** Called when an idle pooled connection dies (e.g. Postgres restarts). */
  readonly onIdleError?: (err: Error) => void;
}

/**
 * A kysely handle over a pg Pool. int8 columns come back as strings (node-postgres default,
 * see column-types.ts). Call `db.destroy()` to end the pool.
 */
export function createDb(url: string, opts: DbOptions = {}): Kysely<Database> {
  const pool = new pg.Pool({
    connectionString: url,
    max: opts.poolSize ?? 10,
    application_name: opts.applicationName,
    // Fail fast instead of hanging when Postgres is unreachable: callers retry with backoff.
    connectionTimeoutMillis: 5_000,
    idleTimeoutMillis: 30_000,
  });
  // Without a listener, an idle client's error (Postgres restart) is an unhandled 'error' event
  // and kills the process; the pool drops that client and reconnects on the next checkout.
  pool.on('error', (err) => opts.onIdleError?.(err));
  // The pool listens only while a client is idle: one checked out between two statements of a
  // transaction when Postgres goes away emitted an unhandled 'error' and killed the worker in the
  // Postgres fault test. Its statement fails instead, and the pool drops the unqueryable client.
  pool.on('connect', (client) => client.on('error', (err) => opts.onIdleError?.(err)));
  return new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
}

function quoteIdent(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/** The database named in a postgres:// URL. */
export function databaseNameOf(url: string): string {
  const name = decodeURIComponent(new URL(url).pathname.replace(/^\//, ''));
  if (!name) throw new Error(`database URL names no database: ${redactUrl(url)}`);
  return name;
}

/** The same server and credentials, pointed at the `postgres` maintenance database. */
export function maintenanceUrlOf(url: string): string {
  const u = new URL(url);
  u.pathname = '/postgres';
  return u.toString();
}

const DUPLICATE_DATABASE = '42P04';

/**
 * Creates the database named in `url` when it does not exist (connecting to `postgres` on the same
 * server). Returns true when it created it. Safe to race: a concurrent creator wins silently.
 */
export async function ensureDatabase(url: string): Promise<boolean> {
  const name = databaseNameOf(url);
  const client = new pg.Client({ connectionString: maintenanceUrlOf(url), connectionTimeoutMillis: 5_000 });
  await client.connect();
  try {
    const found = await client.query('select 1 from pg_database where datname = $1', [name]);
    if (found.rowCount) return false;
    try {
      await client.query(`create database ${quoteIdent(name)}`);
      return true;
    } catch (err) {
      if ((err as { code?: string }).code === DUPLICATE_DATABASE) return false;
      throw err;
    }
  } finally {
    await client.end();
  }
}

/**
 * SQLSTATEs of a server that cannot serve anyone right now: connection exceptions (class 08), shut
 * down by an admin or a crash, still starting up (57P01-57P03), out of connections (53300).
 */
const UNREACHABLE_STATE = /^(08...|57P0[1-3]|53300)$/;

/** node-postgres's and its pool's own words for a connection lost, never made, or timed out. */
const UNREACHABLE_MESSAGE =
  /^(Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Client was closed)/;

/**
 * Postgres out of reach as node-postgres reports it: a pooled connection cut (restart, failover),
 * the pool's connect timeout (a host that drops packets), the server shutting down or starting.
 * A refused or reset socket is a plain Node socket error, told by `isConnectionError` of
 * #libs/redis; a request answered 503 for either can be retried as is.
 */
export function isDatabaseUnreachable(err: Error): boolean {
  const code = (err as { code?: unknown }).code;
  return (typeof code === 'string' && UNREACHABLE_STATE.test(code)) || UNREACHABLE_MESSAGE.test(err.message);
}
