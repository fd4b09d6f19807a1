import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { sql } from 'kysely';
import { createTestDatabase, type TestDatabase } from '../../../test/support/db.js';
import { createDb } from './connection.js';

let t: TestDatabase;

beforeAll(async () => {
  t = await createTestDatabase('connection');
});

afterAll(async () => {
  await t?.drop();
});

describe('createDb', () => {
  it('survives its connection dying inside a transaction, between two statements', async () => {
    const errors: Error[] = [];
    const db = createDb(t.url, { poolSize: 2, onIdleError: (err) => errors.push(err) });
    try {
      const outcome = db.transaction().execute(async (trx) => {
        const { rows } = await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(trx);
        // Another session ends this one while the transaction holds the client (as a Postgres
        // restart does); without a listener on the checked-out client, the process would crash.
        await sql`select pg_terminate_backend(${rows[0]!.pid})`.execute(t.db);
        await new Promise((r) => setTimeout(r, 100));
        await sql`select 1`.execute(trx);
      });
      await expect(outcome).rejects.toThrow();
      expect(errors.length).toBeGreaterThanOrEqual(1);
      // The pool dropped the dead client: the next statement gets a fresh connection.
      const { rows } = await sql<{ one: number }>`select 1 as one`.execute(db);
      expect(rows).toEqual([{ one: 1 }]);
    } finally {
      await db.destroy();
    }
  });
});
