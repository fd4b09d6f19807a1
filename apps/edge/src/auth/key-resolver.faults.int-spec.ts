import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Redis } from 'ioredis';
import { announceKeyInvalidation, type KeyRecord } from '#libs/auth';
import { parseConfig } from '#libs/gateway-config';
import { GatewayError, renderError } from '#libs/protocol';
import { createRedis, redisKeys } from '#libs/redis';
import { createTestDatabase, type TestDatabase } from '../../../../test/support/db.js';
import { refusal, seedRawKey } from '../../../../test/support/keys.js';
import { startPrivateRedis } from '../../../../test/support/private-servers.js';
import { dropRedisPrefix, TEST_REDIS_URL, uniqueRedisPrefix } from '../../../../test/support/redis.js';
import { keyLookupFromDb } from './key-lookup.js';
import { type KeyLookup, KeyResolver } from './key-resolver.service.js';

const config = parseConfig({
  providers: [{ id: 'p', type: 'openai', base_url: 'http://127.0.0.1:1/v1', models: ['m'] }],
  models: [{ id: 'm', owned_by: 'o', created: 1, pricing: { input_per_million: 1, output_per_million: 1 } }],
  groups: { default: ['m'] },
});

let tdb: TestDatabase;
let redis: Redis;
const prefix = uniqueRedisPrefix('key-faults');
const keys = redisKeys(prefix);
const resolvers: KeyResolver[] = [];

/** Starts a resolver as Nest would (awaiting onModuleInit); `subscribe: false` leaves it deaf to invalidations. */
async function newResolver(
  lookup: KeyLookup = keyLookupFromDb(tdb.db),
  opts: { client?: Redis; subscribe?: boolean } = {},
): Promise<KeyResolver> {
  const resolver = new KeyResolver(opts.client ?? redis, keys, lookup, config);
  resolvers.push(resolver);
  if (opts.subscribe === false) return resolver;
  await Promise.resolve(resolver.onModuleInit());
  await resolver.subscribed();
  return resolver;
}

/** A lookup whose first call reads Postgres, then holds its row until `release()`. */
function heldLookup(): { lookup: KeyLookup; read: Promise<void>; release(): void; calls(): number } {
  const dbLookup = keyLookupFromDb(tdb.db);
  let calls = 0;
  let signalRead!: () => void;
  let release!: () => void;
  const read = new Promise<void>((r) => (signalRead = r));
  const released = new Promise<void>((r) => (release = r));
  const lookup = async (hash: string): Promise<KeyRecord | null> => {
    const row = await dbLookup(hash);
    if (++calls === 1) {
      signalRead();
      await released;
    }
    return row;
  };
  return { lookup, read, release, calls: () => calls };
}

async function revoke(id: string, hash: string): Promise<void> {
  await tdb.db.updateTable('api_keys').set({ status: 'revoked' }).where('id', '=', id).execute();
  await announceKeyInvalidation(redis, keys, hash);
}

async function until(what: string, check: () => boolean): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`${what}: not within 5 s`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

beforeAll(async () => {
  tdb = await createTestDatabase('key_faults');
  redis = createRedis(TEST_REDIS_URL);
});

afterAll(async () => {
  for (const r of resolvers) await r.onApplicationShutdown();
  redis.disconnect();
  await tdb.drop();
  await dropRedisPrefix(prefix);
});

describe('KeyResolver under races and outages', () => {
  it('a fill that read Postgres before a revocation neither serves nor caches its row, in memory or Redis', async () => {
    const { raw, id, hash } = await seedRawKey(tdb.db);
    const held = heldLookup();
    const a = await newResolver(held.lookup);
    const first = a.authenticate(raw).then(
      () => 'accepted',
      (err: unknown) => err,
    );
    await held.read; // the fill holds the row as it was before the revocation
    await revoke(id, hash);
    await until('the edge hears the invalidation', () => a.invalidations > 0);
    held.release();
    // The request resolves again instead of being served from the stale row...
    expect(await first).toMatchObject({ code: 'invalid_api_key' });
    expect(held.calls()).toBe(2);
    // ...the same edge's memory does not hold it, and a second edge finds no stale copy in Redis.
    await expect(a.authenticate(raw)).rejects.toMatchObject({ code: 'invalid_api_key' });
    await expect((await newResolver()).authenticate(raw)).rejects.toMatchObject({ code: 'invalid_api_key' });
  });

  it('a fill cannot write a copy older than the last invalidation into Redis', async () => {
    const { raw, id, hash } = await seedRawKey(tdb.db);
    const held = heldLookup();
    // An edge that never hears the announcement (its channel is down): only the generation stops it.
    const deaf = await newResolver(held.lookup, { subscribe: false });
    const served = deaf.authenticate(raw);
    await held.read;
    await revoke(id, hash);
    held.release();
    await served; // deaf, so it serves its row once; it must not hand it to every other edge
    expect(await redis.get(keys.apiKey(hash))).toBeNull();
    await expect((await newResolver()).authenticate(raw)).rejects.toMatchObject({ code: 'invalid_api_key' });
  });

  it('answers 503 auth_unavailable with retry-after, in either client shape, when Postgres is down', async () => {
    const { raw } = await seedRawKey(tdb.db);
    // What pg rejects with when the server is gone.
    const down: KeyLookup = () =>
      Promise.reject(
        Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }),
      );
    const err = await (await newResolver(down)).authenticate(raw).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(GatewayError);
    expect(err).toMatchObject({ code: 'auth_unavailable', status: 503, details: { retryAfterSeconds: 1 } });
    const openai = renderError(err as GatewayError, 'openai');
    expect(openai).toMatchObject({ status: 503, headers: { 'retry-after': '1' } });
    expect(JSON.parse(openai.body)).toMatchObject({ error: { type: 'api_error', code: 'auth_unavailable' } });
    const anthropic = renderError(err as GatewayError, 'anthropic');
    expect(anthropic).toMatchObject({ status: 503, headers: { 'retry-after': '1' } });
    expect(JSON.parse(anthropic.body)).toMatchObject({ type: 'error', error: { type: 'api_error' } });
  });

  it('starts while Redis is down, answers from Postgres, and subscribes once Redis is up', async () => {
    const server = await startPrivateRedis();
    await server.stop();
    // As the edge connects: requests give up on Redis after a short bound and fall back.
    const client = createRedis(server.url, { name: 'keys-down', commandTimeoutMs: 200 });
    client.on('error', () => undefined);
    try {
      const { raw, id, hash } = await seedRawKey(tdb.db);
      const r = await newResolver(keyLookupFromDb(tdb.db), { client, subscribe: false });
      await Promise.resolve(r.onModuleInit()); // waited for the subscription (and failed) before
      expect((await r.authenticate(raw)).id).toBe(id);
      expect((await r.authenticate(raw)).id).toBe(id);
      await server.start();
      await r.subscribed();
      expect((await r.authenticate(raw)).id).toBe(id);
      await tdb.db.updateTable('api_keys').set({ status: 'revoked' }).where('id', '=', id).execute();
      const onServer = createRedis(server.url);
      await announceKeyInvalidation(onServer, keys, hash);
      onServer.disconnect();
      expect(await refusal(r, raw)).toMatchObject({ code: 'invalid_api_key' });
    } finally {
      client.disconnect();
      await server.destroy();
    }
  });
});
