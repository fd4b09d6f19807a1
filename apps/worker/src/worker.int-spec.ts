import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { type NestFastifyApplication } from '@nestjs/platform-fastify';
import { type JobsOptions, Queue } from 'bullmq';
import { sql } from 'kysely';
import { type GatewayConfig, readEnv } from '#libs/config';
import { parseConfig } from '#libs/gateway-config';
import { getQuotaBalance } from '#libs/db';
import {
  logBatchJobId,
  MAX_LOGS_PER_JOB,
  REQUEST_LOG_BATCH_JOB,
  REQUEST_LOG_JOB_OPTIONS,
  REQUEST_LOG_QUEUE,
  type RequestLogBatch,
  type RequestLogJob,
} from '#libs/queue';
import { createRedis, redisKeys } from '#libs/redis';
import { GracefulDrain } from '#libs/runtime';
import {
  createTestDatabase,
  requestLogJob,
  seedUserWithKey,
  type TestDatabase,
} from '../../../test/support/db.js';
import { dropRedisPrefix, TEST_REDIS_URL, uniqueRedisPrefix } from '../../../test/support/redis.js';
import { JOB_CONCURRENCY } from './request-logs/request-log.processor.js';
import { createWorkerApp } from './worker.app.js';

function configWith(worker: { batch_max: number; batch_wait_ms: number }): GatewayConfig {
  return parseConfig({
    worker,
    providers: [{ id: 'p', type: 'openai', base_url: 'http://127.0.0.1:9/v1', models: ['m'] }],
    models: [
      { id: 'm', owned_by: 'test', created: 0, pricing: { input_per_million: 1, output_per_million: 1 } },
    ],
    groups: { default: ['m'] },
  });
}

async function waitFor<T>(
  what: string,
  probe: () => Promise<T | undefined | false>,
  timeoutMs = 10_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

let t: TestDatabase;
let prefix: string;
let queue: Queue;
let app: NestFastifyApplication | null = null;

async function startWorker(
  databaseUrl: string,
  worker = { batch_max: 20, batch_wait_ms: 20 },
): Promise<NestFastifyApplication> {
  const env = readEnv({ DATABASE_URL: databaseUrl, REDIS_URL: TEST_REDIS_URL, REDIS_PREFIX: prefix });
  const started = await createWorkerApp(env, configWith(worker), { logLevels: ['error'] });
  await started.listen(0, '127.0.0.1');
  return started;
}

async function get(target: NestFastifyApplication, path: string): Promise<{ status: number; body: unknown }> {
  const res = await fetch(`${await target.getUrl()}${path}`);
  return { status: res.status, body: await res.json() };
}

/** A batch job as an edge sends it (`opts` overrides the producer's options). */
function batchJob(logs: readonly RequestLogJob[], opts: JobsOptions = {}) {
  const data: RequestLogBatch = { v: 1, logs: [...logs] };
  return {
    name: REQUEST_LOG_BATCH_JOB,
    data,
    opts: { ...REQUEST_LOG_JOB_OPTIONS, jobId: logBatchJobId(logs), ...opts },
  };
}

/** Enqueues one batch job; resolves to its id. */
async function enqueue(logs: readonly RequestLogJob[], opts: JobsOptions = {}): Promise<string> {
  const { name, data, opts: jobOpts } = batchJob(logs, opts);
  const job = await queue.add(name, data, jobOpts);
  return job.id!;
}

function userLogs(owner: { userId: string; keyId: string }, count: number, costNanos = 1): RequestLogJob[] {
  return Array.from({ length: count }, () =>
    requestLogJob({ userId: owner.userId, keyId: owner.keyId, costNanos }),
  );
}

async function countByRequestId(table: 'request_logs' | 'charges', ids: readonly string[]): Promise<number> {
  const row = await t.db
    .selectFrom(table)
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('request_id', 'in', ids)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

const logCount = (requestId: string): Promise<number> => countByRequestId('request_logs', [requestId]);

async function jobState(id: string): Promise<string> {
  return queue.getJobState(id);
}

async function settled(id: string): Promise<string> {
  return waitFor(`job ${id} to settle`, async () => {
    const state = await jobState(id);
    return (state === 'completed' || state === 'failed') && state;
  });
}

beforeAll(async () => {
  t = await createTestDatabase('worker');
  prefix = uniqueRedisPrefix('worker');
  queue = new Queue(REQUEST_LOG_QUEUE, {
    connection: createRedis(TEST_REDIS_URL, { forBullmq: true }),
    prefix: redisKeys(prefix).bullPrefix,
  });
});

afterAll(async () => {
  await app?.close();
  await queue.close();
  await queue.disconnect();
  await dropRedisPrefix(prefix);
  await t.drop();
});

describe('worker app', () => {
  beforeAll(async () => {
    app = await startWorker(t.url);
  });

  it('is ready when Redis and Postgres answer', async () => {
    expect(await get(app!, '/readyz')).toEqual({
      status: 200,
      body: { ready: true, redis: true, postgres: true },
    });
    expect(await get(app!, '/healthz')).toMatchObject({
      status: 200,
      body: { status: 'ok', queue: { running: true } },
    });
  });

  it('fails readiness once it begins to stop, before its modules wind down', async () => {
    const drain = app!.get(GracefulDrain);
    drain.beginDraining(); // what runMain does on SIGTERM
    try {
      expect(await get(app!, '/readyz')).toEqual({ status: 503, body: { ready: false, draining: true } });
    } finally {
      drain.draining = false;
    }
  });

  it('drains batch jobs into request_logs and settles their charges', async () => {
    const owner = await seedUserWithKey(t.db, { grantNanos: 1_000_000n });
    const logs = Array.from({ length: 45 }, (_, i) =>
      requestLogJob({
        userId: owner.userId,
        keyId: owner.keyId,
        costNanos: 100 + i,
        startedAt: new Date(Date.now() - i * 1000).toISOString(),
      }),
    );
    const batches = [logs.slice(0, 15), logs.slice(15, 30), logs.slice(30)];
    await queue.addBulk(batches.map((b) => batchJob(b)));
    const ids = batches.map((b) => logBatchJobId(b));
    await waitFor('all jobs completed', async () => {
      const states = await Promise.all(ids.map(jobState));
      return states.every((s) => s === 'completed');
    });
    const requestIds = logs.map((l) => l.requestId);
    expect(await countByRequestId('request_logs', requestIds)).toBe(45);
    expect(await countByRequestId('charges', requestIds)).toBe(45);
    const spent = logs.reduce((sum, l) => sum + l.costNanos, 0);
    expect(await getQuotaBalance(t.db, owner.userId)).toMatchObject({
      balance_nanos: String(1_000_000 - spent),
      spent_nanos: String(spent),
    });
    const key = await t.db
      .selectFrom('api_keys')
      .select(['last_used_at', 'spent_nanos'])
      .where('id', '=', owner.keyId)
      .executeTakeFirstOrThrow();
    expect(key).toEqual({ last_used_at: new Date(logs[0]!.startedAt), spent_nanos: String(spent) });
  });

  it(`lands a full batch of ${MAX_LOGS_PER_JOB} logs as exactly as many rows and charges`, async () => {
    const owner = await seedUserWithKey(t.db, { grantNanos: 1_000_000n });
    const logs = userLogs(owner, MAX_LOGS_PER_JOB, 3);
    const id = await enqueue(logs);
    expect(await settled(id)).toBe('completed');
    const requestIds = logs.map((l) => l.requestId);
    expect(await countByRequestId('request_logs', requestIds)).toBe(MAX_LOGS_PER_JOB);
    expect(await countByRequestId('charges', requestIds)).toBe(MAX_LOGS_PER_JOB);
    expect(await getQuotaBalance(t.db, owner.userId)).toMatchObject({
      balance_nanos: String(1_000_000 - 3 * MAX_LOGS_PER_JOB),
      spent_nanos: String(3 * MAX_LOGS_PER_JOB),
    });
  });

  it('never writes a redelivered or overlapping batch twice', async () => {
    const owner = await seedUserWithKey(t.db, { grantNanos: 1_000n });
    const logs = userLogs(owner, 2, 10);
    const id = await enqueue(logs);
    expect(await settled(id)).toBe('completed');
    // The same batch while the first job is kept (a producer retry whose first add landed):
    // BullMQ ignores it.
    await enqueue(logs);
    // The completed job gone (retention) and the producer sends it again: BullMQ runs it again.
    await (await queue.getJob(id))!.remove();
    await enqueue(logs);
    expect(await settled(id)).toBe('completed');
    // A producer retrying with a buffer that grew meanwhile: the same logs and a new one.
    const grown = [...logs, requestLogJob({ userId: owner.userId, keyId: owner.keyId, costNanos: 10 })];
    expect(await settled(await enqueue(grown))).toBe('completed');
    // And the same logs once more under another job id.
    expect(await settled(await enqueue(logs, { jobId: 'another-job-id' }))).toBe('completed');

    const requestIds = grown.map((l) => l.requestId);
    expect(await countByRequestId('request_logs', requestIds)).toBe(3);
    expect(await countByRequestId('charges', requestIds)).toBe(3);
    expect(await getQuotaBalance(t.db, owner.userId)).toMatchObject({
      balance_nanos: '970',
      spent_nanos: '30',
    });
  });

  it('retries a batch whose transaction failed, and lands it once', async () => {
    const owner = await seedUserWithKey(t.db, { grantNanos: 500n });
    const logs = userLogs(owner, 3, 7);
    const id = logBatchJobId(logs);
    // Charges cannot be written: the batch transaction fails after its log insert.
    await sql`alter table charges rename to charges_away`.execute(t.db);
    try {
      await enqueue(logs, { backoff: { type: 'fixed', delay: 300 } });
      await waitFor('a failed attempt', async () => ((await queue.getJob(id))?.attemptsMade ?? 0) >= 1);
      expect(await logCount(logs[0]!.requestId)).toBe(0);
    } finally {
      await sql`alter table charges_away rename to charges`.execute(t.db);
    }
    expect(await settled(id)).toBe('completed');
    const requestIds = logs.map((l) => l.requestId);
    expect(await countByRequestId('request_logs', requestIds)).toBe(3);
    expect(await countByRequestId('charges', requestIds)).toBe(3);
    expect(await getQuotaBalance(t.db, owner.userId)).toMatchObject({ balance_nanos: '479' });
  });

  it('fails an invalid batch once and keeps it, without retries', async () => {
    await queue.add(
      REQUEST_LOG_BATCH_JOB,
      { v: 1, logs: [] },
      { ...REQUEST_LOG_JOB_OPTIONS, jobId: 'empty' },
    );
    expect(await settled('empty')).toBe('failed');
    const job = await queue.getJob('empty');
    expect(job?.attemptsMade).toBe(1);
    expect(job?.failedReason).toContain('invalid request log batch');
  });

  it('writes the valid logs of a batch and fails it once for the invalid ones', async () => {
    const owner = await seedUserWithKey(t.db, { grantNanos: 100n });
    const good = userLogs(owner, 3);
    const bad = { ...requestLogJob(), status: 'teapot' } as unknown as RequestLogJob;
    const logs = [good[0]!, bad, good[1]!, good[2]!];
    const id = await enqueue(logs);
    expect(await settled(id)).toBe('failed');
    const job = await queue.getJob(id);
    expect(job?.attemptsMade).toBe(1);
    expect(job?.failedReason).toContain('1 of 4 logs can never be written: [1]');
    expect(job?.data).toEqual({ v: 1, logs });
    expect(await Promise.all(logs.map((l) => logCount(l.requestId)))).toEqual([1, 0, 1, 1]);
    expect(await getQuotaBalance(t.db, owner.userId)).toMatchObject({ balance_nanos: '97' });
  });

  it('stores a log whose adjustments it cannot take as sent, repaired, and still charges it', async () => {
    const owner = await seedUserWithKey(t.db, { grantNanos: 100n });
    const [nul, long, many] = userLogs(owner, 3).map((log, i) => ({
      ...log,
      adjustments: [
        ['dropped tools[0].\u0000'],
        ['dropped ' + 'k'.repeat(301)],
        Array.from({ length: 70 }, (_, j) => `dropped x${j}`),
      ][i]!,
    }));
    const id = await enqueue([nul!, long!, many!]);
    expect(await settled(id)).toBe('completed');
    const rows = await t.db
      .selectFrom('request_logs')
      .select(['request_id', 'adjustments', 'repairs'])
      .where('request_id', 'in', [nul!.requestId, long!.requestId, many!.requestId])
      .execute();
    const byId = new Map(rows.map((r) => [r.request_id, r]));
    expect(byId.get(nul!.requestId)).toMatchObject({ adjustments: ['dropped tools[0].\\u0000'] });
    expect(byId.get(long!.requestId)!.adjustments[0]).toHaveLength(300);
    expect(byId.get(many!.requestId)!.adjustments).toHaveLength(64);
    expect(byId.get(many!.requestId)!.adjustments.at(-1)).toBe('and 7 more');
    for (const row of rows) expect(row.repairs).toEqual([expect.stringMatching(/^adjustments/)]);
    expect(await getQuotaBalance(t.db, owner.userId)).toMatchObject({ balance_nanos: '97' });
  });

  it('writes the rest of a batch whose row Postgres rejects, and fails it once', async () => {
    const owner = await seedUserWithKey(t.db, { grantNanos: 100n });
    const good = userLogs(owner, 3);
    // A well-formed owner id that does not exist: the charge violates its foreign key. Retrying
    // cannot fix it, so the job fails at once although it has attempts left.
    const orphan = requestLogJob({ userId: '00000000-0000-4000-8000-0000000000ff', costNanos: 1 });
    const logs = [...good, orphan];
    const id = await enqueue(logs);
    expect(await settled(id)).toBe('failed');
    const job = await queue.getJob(id);
    expect(job?.attemptsMade).toBe(1);
    expect(job?.failedReason).toContain('1 of 4 logs can never be written: [3]');
    expect(await Promise.all(logs.map((l) => logCount(l.requestId)))).toEqual([1, 1, 1, 0]);
    expect(await getQuotaBalance(t.db, owner.userId)).toMatchObject({ balance_nanos: '97' });
  });

  it('still drains single-log jobs sent by edges from before batching', async () => {
    const log = requestLogJob();
    await queue.add('log', log, { ...REQUEST_LOG_JOB_OPTIONS, jobId: log.requestId });
    expect(await settled(log.requestId)).toBe('completed');
    expect(await logCount(log.requestId)).toBe(1);
  });

  afterAll(async () => {
    await app?.close();
    app = null;
  });
});

describe('worker lifecycle', () => {
  it('keeps jobs while Postgres is unreachable and lands them once it is back', async () => {
    const down = await startWorker('postgres://postgres@127.0.0.1:1/nowhere');
    const logs = [requestLogJob(), requestLogJob()];
    const id = logBatchJobId(logs);
    try {
      await enqueue(logs, { backoff: { type: 'fixed', delay: 200 } });
      await waitFor('a failed attempt', async () => ((await queue.getJob(id))?.attemptsMade ?? 0) >= 1);
      expect(await get(down, '/readyz')).toEqual({
        status: 503,
        body: { ready: false, redis: true, postgres: false },
      });
    } finally {
      await down.close();
    }
    expect(['delayed', 'wait']).toContain(await jobState(id));
    app = await startWorker(t.url);
    expect(await settled(id)).toBe('completed');
    expect(await countByRequestId('request_logs', [logs[0]!.requestId, logs[1]!.requestId])).toBe(2);
    await app.close();
    app = null;
  });

  it('on close writes the batch in hand at once and completes its jobs', async () => {
    // A batch window of an hour, far past the test's timeout: only close() can write the batch
    // before the test times out; a close that waited for the window fails it. Closed on a failure
    // before its close too, so the window's timer does not keep Jest running for the hour.
    const slow = await startWorker(t.url, { batch_max: 100, batch_wait_ms: 3_600_000 });
    let closing: Promise<void> | null = null;
    try {
      const batches = [1, 2, 3].map(() => [requestLogJob(), requestLogJob()]);
      await queue.addBulk(batches.map((b) => batchJob(b)));
      await waitFor('jobs active', async () => (await queue.getActiveCount()) === 3);
      await (closing = slow.close());
      expect(await Promise.all(batches.map((b) => jobState(logBatchJobId(b))))).toEqual([
        'completed',
        'completed',
        'completed',
      ]);
      expect(
        await countByRequestId(
          'request_logs',
          batches.flat().map((l) => l.requestId),
        ),
      ).toBe(6);
    } finally {
      if (closing === null) await slow.close();
    }
  }, 30_000);

  it('writes at once, without waiting for the batch window, when every job slot is taken', async () => {
    // Small jobs filling every slot twice, and a batch window far longer than the test.
    const slow = await startWorker(t.url, { batch_max: 10_000, batch_wait_ms: 60_000 });
    try {
      const batches = Array.from({ length: 2 * JOB_CONCURRENCY }, () => [requestLogJob()]);
      await queue.addBulk(batches.map((b) => batchJob(b)));
      const ids = batches.map((b) => logBatchJobId(b));
      await waitFor('all jobs completed', async () =>
        (await Promise.all(ids.map(jobState))).every((s) => s === 'completed'),
      );
      expect(
        await countByRequestId(
          'request_logs',
          batches.flat().map((l) => l.requestId),
        ),
      ).toBe(2 * JOB_CONCURRENCY);
    } finally {
      await slow.close();
    }
  });
});
