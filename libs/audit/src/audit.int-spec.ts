import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { sql } from 'kysely';
import { createTestDatabase, type TestDatabase } from '../../../test/support/db.js';
import { appendAuditEvent } from './append.js';
import { GENESIS_HASH } from './chain.js';
import { type AuditEvent } from './event.js';
import { listAuditEvents, scanAuditEvents } from './query.js';
import { verifyAuditChain } from './verify.js';

let t: TestDatabase;
beforeAll(async () => {
  t = await createTestDatabase('audit');
});
afterAll(async () => {
  await t.drop();
});

/** Empties the table the only way there is: as a superuser, with the trigger off for one transaction. */
async function bypassTrigger(statement: string): Promise<void> {
  await t.db.transaction().execute(async (trx) => {
    await sql`alter table audit_events disable trigger user`.execute(trx);
    await sql.raw(statement).execute(trx);
    await sql`alter table audit_events enable trigger user`.execute(trx);
  });
}

beforeEach(async () => {
  await bypassTrigger('delete from audit_events');
});

const event = (n: number, over: Partial<AuditEvent> = {}): AuditEvent => ({
  actor: { kind: 'user', id: `u${n}`, email: `User${n}@example.com` },
  origin: { ip: '203.0.113.7', userAgent: 'jest' },
  action: n % 2 ? 'user.create' : 'budget.delete',
  target: { type: 'user', id: `t${n}` },
  before: n % 2 ? null : { limitCredits: n },
  after: { n, password: 'hunter2', nested: { api_key: 'sk-live-1' } },
  ...over,
});

async function appendMany(count: number): Promise<void> {
  for (let n = 1; n <= count; n++) await appendAuditEvent(t.db, event(n));
}

describe('append', () => {
  it('chains each row to the one before, from the genesis hash, with secrets masked', async () => {
    const first = await appendAuditEvent(t.db, event(1));
    const second = await appendAuditEvent(t.db, event(2));
    expect(first.prev_hash).toBe(GENESIS_HASH);
    expect(second.prev_hash).toBe(first.hash);
    expect(first.hash).toMatch(/^[0-9a-f]{64}$/);
    expect(first.after).toEqual({ n: 1, password: '[masked]', nested: { api_key: '[masked]' } });
    expect(JSON.stringify(await t.db.selectFrom('audit_events').selectAll().execute())).not.toMatch(
      /hunter2|sk-live-1/,
    );
    expect(await verifyAuditChain(t.db)).toMatchObject({
      ok: true,
      checked: 2,
      fromGenesis: true,
      headHash: second.hash,
      break: null,
    });
  });

  it('bounds what a client chooses: a long user agent is cut, a control character replaced', async () => {
    const row = await appendAuditEvent(
      t.db,
      event(1, { origin: { ip: '198.51.100.1', userAgent: `evil\nline${'x'.repeat(2_000)}` } }),
    );
    expect(row.user_agent).toHaveLength(512);
    expect(row.user_agent).toMatch(/^evil\ufffdline/);
    expect((await verifyAuditChain(t.db)).ok).toBe(true);
  });

  it('rolls back with the transaction it is part of, leaving no trace in the chain', async () => {
    await appendAuditEvent(t.db, event(1));
    await expect(
      t.db.transaction().execute(async (trx) => {
        await appendAuditEvent(trx, event(2));
        throw new Error('the change failed');
      }),
    ).rejects.toThrow('the change failed');
    await appendAuditEvent(t.db, event(3));
    const status = await verifyAuditChain(t.db);
    expect(status).toMatchObject({ ok: true, checked: 2 });
  });

  it('keeps one chain under concurrent appends', async () => {
    await Promise.all(Array.from({ length: 40 }, (_, i) => appendAuditEvent(t.db, event(i + 1))));
    const rows = await t.db.selectFrom('audit_events').select(['prev_hash', 'hash']).execute();
    expect(new Set(rows.map((r) => r.prev_hash)).size).toBe(40);
    expect(await verifyAuditChain(t.db)).toMatchObject({ ok: true, checked: 40 });
  });
});

describe('append-only', () => {
  it('refuses UPDATE, DELETE and TRUNCATE, even to a superuser', async () => {
    await appendMany(2);
    await expect(sql`update audit_events set action = 'nothing'`.execute(t.db)).rejects.toThrow(
      /append-only: UPDATE refused/,
    );
    await expect(sql`delete from audit_events`.execute(t.db)).rejects.toThrow(/append-only: DELETE refused/);
    await expect(sql`truncate audit_events`.execute(t.db)).rejects.toThrow(/append-only: TRUNCATE refused/);
    expect(await t.db.selectFrom('audit_events').select('id').execute()).toHaveLength(2);
  });
});

describe('verify', () => {
  it('finds a removed row: the next one no longer links to what precedes it', async () => {
    await appendMany(5);
    const rows = await t.db.selectFrom('audit_events').select(['id', 'hash']).orderBy('id').execute();
    await bypassTrigger(`delete from audit_events where id = ${rows[2]!.id}`);
    expect(await verifyAuditChain(t.db)).toMatchObject({
      ok: false,
      checked: 2,
      break: { id: rows[3]!.id, kind: 'unlinked', expected: rows[1]!.hash, found: rows[2]!.hash },
    });
  });

  it('finds an altered row, before or after included', async () => {
    await appendMany(4);
    const rows = await t.db.selectFrom('audit_events').select('id').orderBy('id').execute();
    await bypassTrigger(`update audit_events set after = '{"n": 99}' where id = ${rows[1]!.id}`);
    expect(await verifyAuditChain(t.db)).toMatchObject({
      ok: false,
      checked: 1,
      break: { id: rows[1]!.id, kind: 'altered' },
    });
  });

  it('finds an `at` moved within its millisecond (the driver reads milliseconds; Postgres keeps microseconds)', async () => {
    await appendMany(3);
    const rows = await t.db.selectFrom('audit_events').select('id').orderBy('id').execute();
    await bypassTrigger(
      `update audit_events set at = at + interval '500 microseconds' where id = ${rows[1]!.id}`,
    );
    expect(await verifyAuditChain(t.db)).toMatchObject({
      ok: false,
      checked: 1,
      break: { id: rows[1]!.id, kind: 'altered' },
    });
  });

  it('accepts a chain whose head was archived, and says it starts at a checkpoint', async () => {
    await appendMany(4);
    const rows = await t.db.selectFrom('audit_events').select(['id', 'hash']).orderBy('id').execute();
    await bypassTrigger(`delete from audit_events where id <= ${rows[1]!.id}`);
    expect(await verifyAuditChain(t.db)).toMatchObject({
      ok: true,
      checked: 2,
      anchor: rows[1]!.hash,
      fromGenesis: false,
    });
  });

  it('reports an empty trail as intact', async () => {
    expect(await verifyAuditChain(t.db)).toMatchObject({ ok: true, checked: 0, fromGenesis: true });
  });
});

describe('list and scan', () => {
  it('filters by actor (email any case), action family, target and time, a page at a time', async () => {
    await appendMany(6);
    await appendAuditEvent(t.db, event(7, { outcome: 'refused', reason: 'no' }));
    const byActor = await listAuditEvents(t.db, { actor: 'user3@EXAMPLE.com' }, { limit: 10 });
    expect(byActor.events.map((e) => e.target_id)).toEqual(['t3']);
    const family = await listAuditEvents(t.db, { action: 'budget' }, { limit: 2 });
    expect(family.events.map((e) => e.target_id)).toEqual(['t6', 't4']);
    const rest = await listAuditEvents(t.db, { action: 'budget' }, { limit: 2, before: family.next! });
    expect(rest).toMatchObject({ next: null });
    expect(rest.events.map((e) => e.target_id)).toEqual(['t2']);
    expect((await listAuditEvents(t.db, { action: 'budge' }, { limit: 10 })).events).toEqual([]);
    expect((await listAuditEvents(t.db, { target: 't5' }, { limit: 10 })).events).toHaveLength(1);
    expect((await listAuditEvents(t.db, { outcome: 'refused' }, { limit: 10 })).events).toHaveLength(1);
    const future = new Date(Date.now() + 60_000);
    expect((await listAuditEvents(t.db, { from: future }, { limit: 10 })).events).toEqual([]);
    expect((await listAuditEvents(t.db, { to: future }, { limit: 10 })).events).toHaveLength(7);
  });

  it('scans every matching event in chain order across batches', async () => {
    await appendMany(7);
    const seen: string[] = [];
    for await (const row of scanAuditEvents(t.db, { action: 'user.create' }, 2)) seen.push(row.target_id!);
    expect(seen).toEqual(['t1', 't3', 't5', 't7']);
  });
});
