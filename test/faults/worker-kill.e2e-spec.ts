import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Queue } from 'bullmq';
import { type Redis } from 'ioredis';
import { sql } from 'kysely';
import {
  logBatchJobId,
  REQUEST_LOG_BATCH_JOB,
  REQUEST_LOG_JOB_OPTIONS,
  REQUEST_LOG_QUEUE,
  type RequestLogJob,
} from '#libs/queue';
import { createRedis, redisKeys } from '#libs/redis';
import { createTestDatabase, requestLogJob, type TestDatabase } from '../support/db.js';
import { TEST_REDIS_URL } from '../support/redis.js';
import { type FaultStack, recordFigures, startFaultStack, waitUntil } from './fault-stack.js';

/**
 * kill -9 of the worker in the middle of its batches, then a restart: every log and charge lands
 * in Postgres exactly once, and each user's balance moved by exactly the sum of their charges.
 * Nothing is stopped but the worker, so the shared Postgres and Redis are used (own database and
 * key prefix). The logs are enqueued as the edges do (batch jobs, same options and job ids).
 */
const LOGS = 6_000;
const PER_JOB = 50;
const USERS = 3;

let t: TestDatabase;
let stack: FaultStack;
let queue: Queue;
let queueConnection: Redis;

async function countRows(table: 'request_logs' | 'charges'): Promise<number> {
  const { rows } = await sql<{ n: string }>`select count(*) as n from ${sql.table(table)}`.execute(stack.db);
  return Number(rows[0]?.n ?? 0);
}

beforeAll(async () => {
  t = await createTestDatabase('worker_kill');
  stack = await startFaultStack({
    label: 'worker-kill',
    databaseUrl: t.url,
    redisUrl: TEST_REDIS_URL,
    // Small batches: many transactions in flight when the kill lands.
    config: (c) => ({ ...c, worker: { batch_max: 50, batch_wait_ms: 5, default_grant_credits: 0 } }),
  });
  queueConnection = createRedis(TEST_REDIS_URL, { forBullmq: true });
  queue = new Queue(REQUEST_LOG_QUEUE, {
    connection: queueConnection,
    prefix: redisKeys(stack.env.redisPrefix).bullPrefix,
  });
}, 60_000);

afterAll(async () => {
  await queue?.close();
  queueConnection?.disconnect();
  await stack?.close();
  await t?.drop();
}, 60_000);

describe('worker killed with SIGKILL mid-batch', () => {
  it('stores every log and charge exactly once after a restart, and balances move by exactly the charges', async () => {
    const users = await Promise.all(Array.from({ length: USERS }, () => stack.createKey(1_000_000_000_000)));
    const balancesBefore = await balances(users.map((u) => u.userId));
    const logs: RequestLogJob[] = Array.from({ length: LOGS }, (_, i) => {
      const user = users[i % USERS]!;
      return requestLogJob({
        userId: user.userId,
        keyId: user.keyId,
        costNanos: 1_000 + ((i * 7919) % 100_000),
      });
    });
    const jobs = [];
    for (let i = 0; i < logs.length; i += PER_JOB) {
      const part = logs.slice(i, i + PER_JOB);
      jobs.push({
        name: REQUEST_LOG_BATCH_JOB,
        data: { v: 1, logs: part },
        opts: { ...REQUEST_LOG_JOB_OPTIONS, jobId: logBatchJobId(part) },
      });
    }
    await queue.addBulk(jobs);

    const first = await stack.start('worker');
    await waitUntil('the first committed batches', async () => (await countRows('request_logs')) > 0, 30_000);
    await first.kill();
    const logsAtKill = await countRows('request_logs');
    // The kill must land mid-way, or this test proves nothing.
    expect(logsAtKill).toBeGreaterThan(0);
    expect(logsAtKill).toBeLessThan(LOGS);

    const restartedAt = Date.now();
    await stack.start('worker');
    // Jobs the dead worker held are given back once their lock expires (BullMQ's stalled check).
    const drainMs = await waitUntil(
      'every log stored after the restart',
      async () =>
        (await countRows('request_logs')) === LOGS &&
        (await queue.getJobCounts('wait', 'active', 'delayed')).wait === 0,
      150_000,
    );
    const counts = await queue.getJobCounts('wait', 'active', 'delayed', 'failed');

    const { rows } = await sql<{ logs: string; distinct_logs: string; charges: string; charge_sum: string }>`
      select (select count(*) from request_logs) as logs,
             (select count(distinct request_id) from request_logs) as distinct_logs,
             (select count(*) from charges) as charges,
             (select coalesce(sum(amount_nanos), 0) from charges) as charge_sum`.execute(stack.db);
    const totals = rows[0]!;
    const expectedSum = logs.reduce((s, l) => s + l.costNanos, 0);
    expect({
      logs: Number(totals.logs),
      distinctLogs: Number(totals.distinct_logs),
      charges: Number(totals.charges),
      chargeSum: Number(totals.charge_sum),
      failedJobs: counts.failed,
    }).toEqual({ logs: LOGS, distinctLogs: LOGS, charges: LOGS, chargeSum: expectedSum, failedJobs: 0 });

    // The ledger is exact per user: balance debited = spent = sum of that user's charges.
    const after = await balances(users.map((u) => u.userId));
    for (const user of users) {
      const charged = logs.filter((l) => l.userId === user.userId).reduce((s, l) => s + l.costNanos, 0);
      const before = balancesBefore.get(user.userId) ?? { balance: 0n, spent: 0n };
      const now = after.get(user.userId)!;
      expect({
        user: user.userId,
        debited: before.balance - now.balance,
        spent: now.spent - before.spent,
      }).toEqual({
        user: user.userId,
        debited: BigInt(charged),
        spent: BigInt(charged),
      });
    }

    recordFigures('worker-kill', {
      logs: LOGS,
      logsCommittedAtKill: logsAtKill,
      msFromRestartToAllStored: Date.now() - restartedAt,
      drainMs,
      lost: LOGS - Number(totals.distinct_logs),
      doubled: Number(totals.logs) - Number(totals.distinct_logs) + (Number(totals.charges) - LOGS),
    });
  }, 200_000);
});

async function balances(userIds: string[]): Promise<Map<string, { balance: bigint; spent: bigint }>> {
  const { rows } = await sql<{ user_id: string; balance_nanos: string; spent_nanos: string }>`
    select user_id, balance_nanos, spent_nanos from quota_balances where user_id = any(${userIds})`.execute(
    stack.db,
  );
  return new Map(
    rows.map((r) => [r.user_id, { balance: BigInt(r.balance_nanos), spent: BigInt(r.spent_nanos) }]),
  );
}
