import { type Kysely, sql } from 'kysely';
import { type Database } from './database.js';

/** Resolves when Postgres answers a trivial query (readiness probes). */
export async function pingDatabase(db: Kysely<Database>): Promise<void> {
  await sql`select 1`.execute(db);
}
