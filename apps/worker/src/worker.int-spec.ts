import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { type NestFastifyApplication } from '@nestjs/platform-fastify';
import { type JobsOptions, Queue } from 'bullmq';
import { sql } from 'kysely';
import { type GatewayConfig, parseConfig, readEnv } from '#libs/config';
import { getQuotaBalance } from '#libs/db';
import { REQUEST_LOG_JOB_OPTIONS, REQUEST_LOG_QUEUE, type RequestLogJob } from '#libs/queue';
import { createRedis, redisKeys } from '#libs/redis';
import {
  createTestDatabase,
  requestLogJob,
  seedUserWithKey,
  type TestDatabase,
} from '../../../test/support/db.js';
import { dropRedisPrefix, TEST_REDIS_URL, uniqueRedisPrefix } from '../../../test/support/redis.js';
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

function enqueue(job: RequestLogJob, opts: JobsOptions = {}) {
  return queue.add('log', job, { ...REQUEST_LOG_JOB_OPTIONS, jobId: job.requestId, ...opts });
}

async function logCount(requestId: string): Promise<number> {
  const row = await t.db
    .selectFrom('request_logs')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('request_id', '=', requestId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

async function chargeCount(requestId: string): Promise<number> {
  const rows = await t.db
    .selectFrom('charges')
    .select('request_id')
    .where('request_id', '=', requestId)
    .execute();
  return rows.length;
}

async function jobState(id: string): Promise<string> {
  return queue.getJobState(id);
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

  it('drains jobs into request_logs and settles their charges', async () => {
    const owner = await seedUserWithKey(t.db, { grantNanos: 1_000_000n });
    const jobs = Array.from({ length: 45 }, (_, i) =>
      requestLogJob({
        userId: owner.userId,
        keyId: owner.keyId,
        costNanos: 100 + i,
        startedAt: new Date(Date.now() - i * 1000).toISOString(),
      }),
    );
    await queue.addBulk(
      jobs.map((data) => ({
        name: 'log',
        data,
        opts: { ...REQUEST_LOG_JOB_OPTIONS, jobId: data.requestId },
      })),
    );
    const last = jobs[jobs.length - 1]!;
    await waitFor('all jobs completed', async () => {
      const states = await Promise.all(jobs.map((j) => jobState(j.requestId)));
      return states.every((s) => s === 'completed');
    });
    for (const j of [jobs[0]!, last]) expect(await logCount(j.requestId)).toBe(1);
    const spent = jobs.reduce((sum, j) => sum + j.costNanos, 0);
    expect(await getQuotaBalance(t.db, owner.userId)).toMatchObject({
      balance_nanos: String(1_000_000 - spent),
      spent_nanos: String(spent),
    });
    const key = await t.db
      .selectFrom('api_keys')
      .select(['last_used_at', 'spent_nanos'])
      .where('id', '=', owner.keyId)
      .executeTakeFirstOrThrow();
    expect(key).toEqual({ last_used_at: new Date(jobs[0]!.startedAt), spent_nanos: String(spent) });
  });

  it('never writes a redelivered job twice', async () => {
    const owner = await seedUserWithKey(t.db, { grantNanos: 1_000n });
    const job = requestLogJob({ userId: owner.userId, keyId: owner.keyId, costNanos: 10 });
    const first = await enqueue(job);
    await waitFor('first delivery', async () => (await jobState(job.requestId)) === 'completed');
    // The same job id while the first is kept: BullMQ ignores it.
    await enqueue(job);
    // The completed job gone (retention) and the producer sends it again: BullMQ runs it again.
    await first.remove();
    await enqueue(job);
    await waitFor('second delivery', async () => (await jobState(job.requestId)) === 'completed');
    // And once more under another job id, as a duplicate from a retried producer would be.
    await enqueue(job, { jobId: `${job.requestId}-again` });
    await waitFor('third delivery', async () => (await jobState(`${job.requestId}-again`)) === 'completed');

    expect(await logCount(job.requestId)).toBe(1);
    expect(await chargeCount(job.requestId)).toBe(1);
    expect(await getQuotaBalance(t.db, owner.userId)).toMatchObject({
      balance_nanos: '990',
      spent_nanos: '10',
    });
  });

  it('retries a batch whose transaction failed, and lands it once', async () => {
    const owner = await seedUserWithKey(t.db, { grantNanos: 500n });
    const job = requestLogJob({ userId: owner.userId, keyId: owner.keyId, costNanos: 7 });
    // Charges cannot be written: the batch transaction fails after its log insert.
    await sql`alter table charges rename to charges_away`.execute(t.db);
    try {
      await enqueue(job, { backoff: { type: 'fixed', delay: 300 } });
      await waitFor(
        'a failed attempt',
        async () => ((await queue.getJob(job.requestId))?.attemptsMade ?? 0) >= 1,
      );
      expect(await logCount(job.requestId)).toBe(0);
    } finally {
      await sql`alter table charges_away rename to charges`.execute(t.db);
    }
    await waitFor('the retry', async () => (await jobState(job.requestId)) === 'completed');
    expect(await logCount(job.requestId)).toBe(1);
    expect(await chargeCount(job.requestId)).toBe(1);
    expect(await getQuotaBalance(t.db, owner.userId)).toMatchObject({ balance_nanos: '493' });
  });

  it('fails an invalid payload once and keeps it, without retries', async () => {
    const bad = { ...requestLogJob(), status: 'teapot' };
    await queue.add('log', bad, { ...REQUEST_LOG_JOB_OPTIONS, jobId: bad.requestId });
    await waitFor('the failure', async () => (await jobState(bad.requestId)) === 'failed');
    const job = await queue.getJob(bad.requestId);
    expect(job?.attemptsMade).toBe(1);
    expect(job?.failedReason).toContain('invalid request log job');
    expect(await logCount(bad.requestId)).toBe(0);
  });

  it('fails only the job whose row Postgres rejects, not its batch', async () => {
    const owner = await seedUserWithKey(t.db, { grantNanos: 100n });
    const good = [1, 2, 3].map(() =>
      requestLogJob({ userId: owner.userId, keyId: owner.keyId, costNanos: 1 }),
    );
    // A well-formed owner id that does not exist: the charge violates its foreign key.
    const orphan = requestLogJob({ userId: '00000000-0000-4000-8000-0000000000ff', costNanos: 1 });
    const all = [...good, orphan];
    await queue.addBulk(
      all.map((data) => ({
        name: 'log',
        data,
        opts: { ...REQUEST_LOG_JOB_OPTIONS, attempts: 1, jobId: data.requestId },
      })),
    );
    await waitFor('all settled', async () => {
      const states = await Promise.all(all.map((j) => jobState(j.requestId)));
      return states.every((s) => s === 'completed' || s === 'failed') && states;
    });
    expect(await Promise.all(all.map((j) => jobState(j.requestId)))).toEqual([
      'completed',
      'completed',
      'completed',
      'failed',
    ]);
    expect(await Promise.all(all.map((j) => logCount(j.requestId)))).toEqual([1, 1, 1, 0]);
    expect(await getQuotaBalance(t.db, owner.userId)).toMatchObject({ balance_nanos: '97' });
  });

  afterAll(async () => {
    await app?.close();
    app = null;
  });
});

describe('worker lifecycle', () => {
  it('keeps jobs while Postgres is unreachable and lands them once it is back', async () => {
    const down = await startWorker('postgres://postgres@127.0.0.1:1/nowhere');
    const job = requestLogJob();
    try {
      await enqueue(job, { backoff: { type: 'fixed', delay: 200 } });
      await waitFor(
        'a failed attempt',
        async () => ((await queue.getJob(job.requestId))?.attemptsMade ?? 0) >= 1,
      );
      expect(await get(down, '/readyz')).toEqual({
        status: 503,
        body: { ready: false, redis: true, postgres: false },
      });
    } finally {
      await down.close();
    }
    expect(['delayed', 'wait']).toContain(await jobState(job.requestId));
    app = await startWorker(t.url);
    await waitFor('the job to land', async () => (await jobState(job.requestId)) === 'completed');
    expect(await logCount(job.requestId)).toBe(1);
    await app.close();
    app = null;
  });

  it('on close writes the batch in hand at once and completes its jobs', async () => {
    // A batch window far longer than the test: only close() can flush it in time.
    const slow = await startWorker(t.url, { batch_max: 100, batch_wait_ms: 60_000 });
    const jobs = [1, 2, 3].map(() => requestLogJob());
    await queue.addBulk(
      jobs.map((data) => ({
        name: 'log',
        data,
        opts: { ...REQUEST_LOG_JOB_OPTIONS, jobId: data.requestId },
      })),
    );
    await waitFor('jobs active', async () => (await queue.getActiveCount()) === 3);
    const started = Date.now();
    await slow.close();
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(await Promise.all(jobs.map((j) => jobState(j.requestId)))).toEqual([
      'completed',
      'completed',
      'completed',
    ]);
    expect(await Promise.all(jobs.map((j) => logCount(j.requestId)))).toEqual([1, 1, 1]);
  });
});
