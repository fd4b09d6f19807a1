import { afterAll, afterEach, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { Logger } from '@nestjs/common';
import { createDb } from '#libs/db';
import {
  createTestDatabase,
  TEST_DATABASE_SERVER_URL,
  type TestDatabase,
} from '../../../../test/support/db.js';
import { ApiError } from '../http/api-error.js';
import { type AuditBy } from './audit-context.js';
import { AuditTrail } from './audit-trail.service.js';

let t: TestDatabase;
beforeAll(async () => {
  t = await createTestDatabase('audit_trail');
});
afterAll(async () => {
  await t.drop();
});
afterEach(() => {
  jest.restoreAllMocks();
});

const by: AuditBy = {
  actor: { kind: 'user', id: 'u1', email: 'root@example.com' },
  origin: { ip: '203.0.113.7', userAgent: 'jest' },
};
const change = { action: 'user.create', target: { type: 'user', id: 'u2' }, after: { password: 'hunter2' } };

/** A pool to a database that does not exist: every append fails as when Postgres is away. */
const unreachable = () => {
  const u = new URL(TEST_DATABASE_SERVER_URL);
  u.pathname = '/gwtest_audit_missing_database';
  return createDb(u.toString(), { poolSize: 1, applicationName: 'test-audit-missing' });
};

const rows = () => t.db.selectFrom('audit_events').selectAll().orderBy('id').execute();

describe('AuditTrail', () => {
  it('records a change and writes its log record, with the hash and no secret', async () => {
    const log = jest.spyOn(Logger.prototype, 'log').mockImplementation(() => undefined);
    await new AuditTrail(t.db).record(by, change);
    const [row] = (await rows()).filter((r) => r.target_id === 'u2');
    expect(row).toMatchObject({ action: 'user.create', actor_email: 'root@example.com', ip: '203.0.113.7' });
    expect(log).toHaveBeenCalledWith(
      expect.objectContaining({
        'event.name': 'gateway.audit',
        'audit.action': 'user.create',
        'user.email': 'root@example.com',
        'client.address': '203.0.113.7',
        'audit.hash': row!.hash,
        'audit.after': '{"password":"[masked]"}',
      }),
    );
  });

  it('fails the request (503) when a change cannot be recorded, and logs the event masked', async () => {
    const db = unreachable();
    const error = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    try {
      const failed = new AuditTrail(db).record(by, change);
      await expect(failed).rejects.toBeInstanceOf(ApiError);
      await expect(failed).rejects.toMatchObject({ status: 503, headers: { 'retry-after': '5' } });
    } finally {
      await db.destroy();
    }
    expect(error).toHaveBeenCalledTimes(1);
    const logged = error.mock.calls[0]![0] as Record<string, unknown>;
    expect(logged['audit.lost']).toMatchObject({ action: 'user.create', actor_email: 'root@example.com' });
    expect(JSON.stringify(logged)).not.toContain('hunter2');
  });

  it('never throws for a refusal it cannot record: the refusal stands, the event is logged', async () => {
    const db = unreachable();
    const error = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    try {
      await expect(
        new AuditTrail(db).refused(by, { action: 'access.refused', reason: 'needs an admin' }),
      ).resolves.toBeUndefined();
    } finally {
      await db.destroy();
    }
    expect(error.mock.calls[0]![0]).toMatchObject({
      'audit.lost': { action: 'access.refused', outcome: 'refused', reason: 'needs an admin' },
    });
  });

  it("records every refused sign-in and a privileged or new user's sign-in, not a member's", async () => {
    jest.spyOn(Logger.prototype, 'log').mockImplementation(() => undefined);
    const trail = new AuditTrail(t.db);
    const origin = { ip: '198.51.100.1', userAgent: 'browser' };
    const ok = { ok: true as const, method: 'oidc', email: 'x@example.com', created: false, ...origin };
    await trail.signIn({ ...ok, userId: 'member', role: 'member' });
    await trail.signIn({ ...ok, userId: 'newcomer', role: 'member', created: true });
    await trail.signIn({ ...ok, userId: 'boss', role: 'admin' });
    await trail.signIn({
      ok: false,
      method: 'oidc',
      email: null,
      status: 400,
      reason: 'replayed',
      ...origin,
    });
    const signIns = (await rows()).filter((r) => r.action === 'auth.sign_in');
    expect(signIns.map((r) => [r.outcome, r.target_id, r.reason])).toEqual([
      ['ok', 'newcomer', null],
      ['ok', 'boss', null],
      ['refused', null, 'replayed'],
    ]);
    expect(signIns[2]).toMatchObject({
      actor_kind: 'anonymous',
      ip: '198.51.100.1',
      after: { method: 'oidc', status: 400 },
    });
  });
});
