/**
 * The cold path in process (issue 40): a cold key's first request and a cold account's first lease
 * against warm ones, and a burst of new accounts' first requests at once, through the edge's own
 * KeyResolver and QuotaGate on real Redis and Postgres (no HTTP, no upstream: what is measured is
 * what differs between cold and warm). A scratch database and Redis prefix of its own, dropped after.
 *
 *   node --conditions=source --import ./test/support/ts-register.mjs bench/cold-path.ts [burst] [singles] [rounds]
 *
 * DATABASE_URL names the server (the database is the script's own); REDIS_URL the Redis.
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
import { modelGroupsOf, rebuildQuotas } from '#libs/quota';
import { type LeaseBook } from '../apps/edge/src/quota/lease-book.js';
import { SeedBatcher } from '../apps/edge/src/quota/seed-batcher.js';
import { percentile } from './stats.js';

const burst = Number(process.argv[2] ?? 1000);
const singles = Number(process.argv[3] ?? 50);
const server = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const dbUrl = new URL(server);
dbUrl.pathname = `/gwbench_cold_${randomBytes(4).toString('hex')}`;
const prefix = `gwbench-cold-${randomBytes(4).toString('hex')}`;
const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
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
const db = createDb(dbUrl.toString()); // the edge's pool: 10
const redis = createRedis(redisUrl, { name: 'cold-path' });
const keys = redisKeys(prefix);

async function newKeys(n: number): Promise<string[]> {
  const raws = Array.from({ length: n }, () => generateApiKey());
  for (let i = 0; i < n; i += 50) {
    await Promise.all(
      raws.slice(i, i + 50).map(async (raw, j) => {
        const { user } = await findOrCreateUserByEmail(
          setupDb,
          `cold-${i + j}-${randomBytes(3).toString('hex')}@x.io`,
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
/** Where a request's time went: the key's resolution and the admission (lease). */
const phases = { auth: [] as number[], admit: [] as number[] };
const request = async (raw: string): Promise<number> => {
  const started = performance.now();
  const key = await resolver.authenticate(raw);
  const resolved = performance.now();
  await gate.admit(key, MODEL);
  const done = performance.now();
  phases.auth.push(resolved - started);
  phases.admit.push(done - resolved);
  return done - started;
};
const ms = (x: number): string => x.toFixed(2);
/** p50 and p99 in ms, two decimals. */
const p = (xs: number[]): [number, number] => [+ms(percentile(xs, 50)), +ms(percentile(xs, 99))];
/**
 * A warm account's lease grant: the gate forgets the key's lease (left in Redis until it ends, as a
 * crashed edge's would be), so the next admission asks Redis for one against the loaded balance.
 */
const warmLease = async (raw: string): Promise<number> => {
  const key = await resolver.authenticate(raw);
  const book = (gate as unknown as { leases: LeaseBook }).leases;
  for (const list of book.all().values()) for (const lease of list) book.drop(lease);
  const started = performance.now();
  await gate.admit(key, MODEL);
  return performance.now() - started;
};

/**
 * Each round measures both ways of loading cold accounts, one after the other on fresh accounts, so
 * the machine's noise (2 shared cores) falls on both: `per-account` is one seed transaction per
 * account, as before issue 40; `batched` is the edge's SeedBatcher.
 */
const rounds = Number(process.argv[4] ?? 3);
const batched = (gate as unknown as { seeds: SeedBatcher }).seeds;
const perAccount = new SeedBatcher(
  (accounts) =>
    rebuildQuotas({ db, redis, keys }, [...accounts.keys()], {
      mode: 'seed',
      now: Date.now,
      modelGroups: modelGroupsOf(config),
    }),
  Infinity,
  1,
);
const variants = { 'per-account': perAccount, batched } as const;

try {
  // A few requests first, so the code is warm and the pools are open.
  for (const raw of await newKeys(20)) await request(raw);
  for (let round = 1; round <= rounds; round++) {
    for (const [name, seeds] of Object.entries(variants)) {
      (gate as unknown as { seeds: SeedBatcher }).seeds = seeds;
      const singleKeys = await newKeys(singles);
      const cold: number[] = [];
      const warm: number[] = [];
      const warmLeases: number[] = [];
      const coldPhases = { auth: [] as number[], admit: [] as number[] };
      for (const raw of singleKeys) {
        cold.push(await request(raw));
        coldPhases.auth.push(phases.auth.at(-1)!);
        coldPhases.admit.push(phases.admit.at(-1)!);
        warm.push(await request(raw));
        warmLeases.push(await warmLease(raw));
      }
      const burstKeys = await newKeys(burst);
      let t = performance.now();
      const coldLat = await Promise.all(burstKeys.map(request));
      const coldRate = burst / ((performance.now() - t) / 1000);
      t = performance.now();
      const warmLat = await Promise.all(burstKeys.map(request));
      const warmRate = burst / ((performance.now() - t) / 1000);
      console.log(
        JSON.stringify({
          round,
          seeds: name,
          // [p50, p99] in ms
          single_cold: p(cold),
          single_cold_key: p(coldPhases.auth),
          single_cold_lease: p(coldPhases.admit),
          single_warm: p(warm),
          single_warm_lease: p(warmLeases),
          burst,
          burst_cold_rps: Math.round(coldRate),
          burst_cold_ms: p(coldLat),
          burst_warm_rps: Math.round(warmRate),
          burst_warm_ms: p(warmLat),
        }),
      );
    }
  }
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
