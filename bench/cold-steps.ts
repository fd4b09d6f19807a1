/**
 * Where a cold request's time goes (issue 40): every Postgres statement and Redis command of a cold
 * key's first request through the edge's KeyResolver and QuotaGate, timed from the request's start
 * (the median of each step over `n` fresh accounts, one at a time), then each kind's count, summed
 * and longest time over a burst of `burst` new accounts at once. A scratch database and Redis
 * prefix of its own, dropped after.
 *
 *   node --conditions=source --import ./test/support/ts-register.mjs bench/cold-steps.ts [n] [burst]
 */
import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { generateApiKey, hashApiKey } from '#libs/auth';
import { parseConfig } from '#libs/gateway-config';
import {
  createDb,
  ensureDatabase,
  findOrCreateUserByEmail,
  insertApiKey,
  maintenanceUrlOf,
  migrateToLatest,
} from '#libs/db';
import { createRedis, deleteMatching, redisKeys } from '#libs/redis';
import { keyLookupFromDb } from '../apps/edge/src/auth/key-lookup.js';
import { KeyResolver } from '../apps/edge/src/auth/key-resolver.service.js';
import { QuotaGate } from '../apps/edge/src/quota/quota-gate.service.js';

const n = Number(process.argv[2] ?? 100);
const server = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const dbUrl = new URL(server);
dbUrl.pathname = `/gwbench_steps_${randomBytes(4).toString('hex')}`;
const prefix = `gwbench-steps-${randomBytes(4).toString('hex')}`;
const MODEL = 'mock-gpt';
const config = parseConfig({
  providers: [{ id: 'p', type: 'openai', base_url: 'http://127.0.0.1:9/v1', models: [MODEL] }],
  models: [
    { id: MODEL, owned_by: 'x', created: 0, pricing: { input_per_million: 1, output_per_million: 2 } },
  ],
  groups: { default: [MODEL] },
});

await ensureDatabase(dbUrl.toString());
const setupDb = createDb(dbUrl.toString(), { poolSize: 8 });
await migrateToLatest(setupDb);
const db = createDb(dbUrl.toString());
const redis = createRedis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', { name: 'cold-steps' });
const keys = redisKeys(prefix);

/** Steps of the request being measured: what, when it was sent and when it answered (ms from start). */
let steps: Array<{ what: string; sent: number; done: number }> | null = null;
let t0 = 0;
const record = async <T>(what: string, run: () => Promise<T>): Promise<T> => {
  if (steps === null) return run();
  const sent = performance.now() - t0;
  const mine = steps;
  const out = await run();
  mine.push({ what, sent, done: performance.now() - t0 });
  return out;
};
const clientQuery = pg.Client.prototype.query as (...a: unknown[]) => unknown;
pg.Client.prototype.query = function (this: pg.Client, ...a: unknown[]) {
  const text = typeof a[0] === 'string' ? a[0] : ((a[0] as { text?: string }).text ?? '?');
  const what = `pg ${text.replace(/\s+/g, ' ').trim().slice(0, 40)}`;
  return record(what, () => clientQuery.apply(this, a) as Promise<unknown>);
} as typeof pg.Client.prototype.query;
const sendCommand = redis.sendCommand.bind(redis);
redis.sendCommand = ((cmd: { name: string; args: unknown[] }) => {
  if (steps !== null) {
    const sent = performance.now() - t0;
    const mine = steps;
    const what = `redis ${cmd.name}`;
    void (cmd as unknown as { promise: Promise<unknown> }).promise.then(
      () => mine.push({ what, sent, done: performance.now() - t0 }),
      () => undefined,
    );
  }
  return sendCommand(cmd as never);
}) as typeof redis.sendCommand;

async function newKeys(count: number): Promise<string[]> {
  const raws = Array.from({ length: count }, () => generateApiKey());
  for (let i = 0; i < count; i += 50) {
    await Promise.all(
      raws.slice(i, i + 50).map(async (raw, j) => {
        const { user } = await findOrCreateUserByEmail(
          setupDb,
          `s-${i + j}-${randomBytes(3).toString('hex')}@x.io`,
          10n ** 12n,
        );
        await insertApiKey(setupDb, {
          user_id: user.id,
          name: 'k',
          key_hash: hashApiKey(raw),
          display_prefix: 'sk-x',
          group_name: 'default',
        });
      }),
    );
  }
  return raws;
}

const resolver = new KeyResolver(redis, keys, keyLookupFromDb(db), config);
const gate = new QuotaGate(redis, keys, db, config, Date.now);
try {
  for (const raw of await newKeys(20)) await gate.admit(await resolver.authenticate(raw), MODEL);
  const byStep = new Map<string, { sent: number[]; took: number[] }>();
  const totals: number[] = [];
  const warm: number[] = [];
  for (const raw of await newKeys(n)) {
    steps = [];
    t0 = performance.now();
    await gate.admit(await resolver.authenticate(raw), MODEL);
    totals.push(performance.now() - t0);
    const done = steps;
    steps = null;
    await new Promise((r) => setTimeout(r, 5)); // the COMMIT and the cache fill land outside the next one
    done.sort((a, b) => a.sent - b.sent);
    done.forEach((s, i) => {
      const name = `${String(i).padStart(2)} ${s.what}`;
      let e = byStep.get(name);
      if (e === undefined) byStep.set(name, (e = { sent: [], took: [] }));
      e.sent.push(s.sent);
      e.took.push(s.done - s.sent);
    });
    t0 = performance.now();
    await gate.admit(await resolver.authenticate(raw), MODEL);
    warm.push(performance.now() - t0);
  }
  const burstKeys = await newKeys(Number(process.argv[3] ?? 1000));
  steps = [];
  t0 = performance.now();
  await Promise.all(burstKeys.map(async (raw) => gate.admit(await resolver.authenticate(raw), MODEL)));
  const burstMs = performance.now() - t0;
  const burstSteps = steps;
  steps = null;
  const agg = new Map<string, { n: number; ms: number; max: number }>();
  for (const s of burstSteps) {
    let e = agg.get(s.what);
    if (e === undefined) agg.set(s.what, (e = { n: 0, ms: 0, max: 0 }));
    e.n++;
    e.ms += s.done - s.sent;
    e.max = Math.max(e.max, s.done - s.sent);
  }
  for (const [name, e] of agg)
    console.log(`burst ${name.padEnd(56)} n ${e.n} sum ${e.ms.toFixed(1)} max ${e.max.toFixed(1)}`);
  console.log(`burst of ${burstKeys.length}: ${burstMs.toFixed(0)} ms`);
  const med = (xs: number[]): string => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!.toFixed(3);
  for (const [name, e] of [...byStep].sort())
    console.log(`${name.padEnd(60)} at ${med(e.sent)} took ${med(e.took)} (${e.took.length})`);
  console.log(`cold total p50 ${med(totals)} ms, warm ${med(warm)} ms`);
} finally {
  await gate.onApplicationShutdown();
  await deleteMatching(redis, keys.allKeys, 1000);
  redis.disconnect();
  await db.destroy();
  await setupDb.destroy();
  const admin = new pg.Client({ connectionString: maintenanceUrlOf(dbUrl.toString()) });
  await admin.connect();
  await admin.query(`drop database if exists "${dbUrl.pathname.slice(1)}" with (force)`);
  await admin.end();
}
