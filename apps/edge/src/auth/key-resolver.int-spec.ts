import { once } from 'node:events';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Redis } from 'ioredis';
import { announceKeyInvalidation, generateApiKey, hashApiKey } from '#libs/auth';
import { sql } from 'kysely';
import { parseConfig } from '#libs/gateway-config';
import { GatewayError } from '#libs/protocol';
import { createRedis, redisKeys } from '#libs/redis';
import { createTestDatabase, type TestDatabase } from '../../../../test/support/db.js';
import { refusal, seedRawKey } from '../../../../test/support/keys.js';
import { startLateRedis } from '../../../../test/support/late-redis.js';
import { dropRedisPrefix, TEST_REDIS_URL, uniqueRedisPrefix } from '../../../../test/support/redis.js';
import { keyLookupFromDb } from './key-lookup.js';
import { KeyResolver, takeFromPostgres } from './key-resolver.service.js';

const config = parseConfig({
  providers: [{ id: 'p', type: 'openai', base_url: 'http://127.0.0.1:1/v1', models: ['m'] }],
  models: [{ id: 'm', owned_by: 'o', created: 1, pricing: { input_per_million: 1, output_per_million: 1 } }],
  groups: { default: ['m'] },
});

let tdb: TestDatabase;
let redis: Redis;
const prefix = uniqueRedisPrefix('keys');
const keys = redisKeys(prefix);
let lookups = 0;
const resolvers: KeyResolver[] = [];

async function newResolver(client: Redis = redis): Promise<KeyResolver> {
  const dbLookup = keyLookupFromDb(tdb.db);
  const resolver = new KeyResolver(client, keys, (hash) => (lookups++, dbLookup(hash)), config);
  resolver.onModuleInit();
  await resolver.subscribed();
  resolvers.push(resolver);
  return resolver;
}

beforeAll(async () => {
  tdb = await createTestDatabase('keys');
  redis = createRedis(TEST_REDIS_URL);
});

afterAll(async () => {
  for (const r of resolvers) await r.onApplicationShutdown();
  redis.disconnect();
  await tdb.drop();
  await dropRedisPrefix(prefix);
});

describe('KeyResolver', () => {
  it('reads Postgres once, then serves from memory, and a second edge from Redis', async () => {
    const { raw, id } = await seedRawKey(tdb.db);
    const a = await newResolver();
    lookups = 0;
    expect((await a.authenticate(raw)).id).toBe(id);
    expect((await a.authenticate(raw)).id).toBe(id);
    expect(lookups).toBe(1);
    expect(a.hits).toBe(1);
    const b = await newResolver();
    expect((await b.authenticate(raw)).id).toBe(id);
    expect(lookups).toBe(1); // filled from Redis, not Postgres
  });

  it('marks a record it read from Postgres, once, and not one it read from Redis or memory', async () => {
    const { raw } = await seedRawKey(tdb.db);
    const a = await newResolver();
    const fromDb = await a.authenticate(raw);
    expect(takeFromPostgres(fromDb)).toBe(true);
    expect(takeFromPostgres(fromDb)).toBe(false);
    expect(takeFromPostgres(await a.authenticate(raw))).toBe(false);
    const b = await newResolver();
    expect(takeFromPostgres(await b.authenticate(raw))).toBe(false);
  });

  it('coalesces concurrent misses for one key into one lookup', async () => {
    const { raw } = await seedRawKey(tdb.db);
    const r = await newResolver();
    lookups = 0;
    await Promise.all(Array.from({ length: 20 }, () => r.authenticate(raw)));
    expect(lookups).toBe(1);
  });

  it('rejects malformed and unknown keys without repeated Postgres lookups', async () => {
    const r = await newResolver();
    await expect(r.authenticate('sk-nope')).rejects.toMatchObject({ code: 'invalid_api_key' });
    await expect(r.authenticate(null)).rejects.toBeInstanceOf(GatewayError);
    lookups = 0;
    const unknown = generateApiKey();
    await expect(r.authenticate(unknown)).rejects.toMatchObject({ code: 'invalid_api_key' });
    await expect((await newResolver()).authenticate(unknown)).rejects.toMatchObject({
      code: 'invalid_api_key',
    });
    expect(lookups).toBe(1); // the second edge found the negative entry in Redis
  });

  it('drops a revoked key from every edge on invalidation', async () => {
    const { raw, id } = await seedRawKey(tdb.db);
    const [a, b] = [await newResolver(), await newResolver()];
    await a.authenticate(raw);
    await b.authenticate(raw);
    await tdb.db.updateTable('api_keys').set({ status: 'revoked' }).where('id', '=', id).execute();
    await announceKeyInvalidation(redis, keys, hashApiKey(raw));
    // Each edge hears it when the pub/sub message arrives (under load, later than any fixed sleep);
    // its memory copy would outlive the wait by far (key_cache_ttl_ms, 60 s).
    expect(await refusal(a, raw)).toMatchObject({ code: 'invalid_api_key' });
    expect(await refusal(b, raw)).toMatchObject({ code: 'invalid_api_key' });
  });

  it('subscribes at start although Redis answers a new connection late: the bound on commands is for requests', async () => {
    // The edge's shared client bounds every command (so requests fall back promptly); its
    // invalidation subscriber is a new connection, and under load its first reply comes late.
    const late = await startLateRedis();
    const client = createRedis(late.url, { name: 'keys-late', commandTimeoutMs: 200 });
    await once(client, 'ready');
    late.holdNewConnections(600);
    try {
      const r = await newResolver(client); // threw 'Command timed out' with the bound inherited
      const { raw, id } = await seedRawKey(tdb.db);
      expect((await r.authenticate(raw)).id).toBe(id);
      await tdb.db.updateTable('api_keys').set({ status: 'revoked' }).where('id', '=', id).execute();
      await announceKeyInvalidation(redis, keys, hashApiKey(raw));
      expect(await refusal(r, raw)).toMatchObject({ code: 'invalid_api_key' });
      await r.onApplicationShutdown();
    } finally {
      client.disconnect();
      await late.close();
    }
  });

  it('still authenticates from Postgres when Redis cannot be reached', async () => {
    const { raw, id } = await seedRawKey(tdb.db);
    const healthy = await newResolver();
    const dead = new Redis('redis://127.0.0.1:1', {
      maxRetriesPerRequest: 0,
      retryStrategy: () => null,
      lazyConnect: true,
    });
    const r = new KeyResolver(dead, keys, keyLookupFromDb(tdb.db), config);
    expect((await r.authenticate(raw)).id).toBe(id);
    dead.disconnect();
    expect((await healthy.authenticate(raw)).id).toBe(id);
  });

  it('resolves a burst of cold keys each to its own record, refusing the revoked one among them', async () => {
    const seeded = await Promise.all(
      Array.from({ length: 8 }, (_, i) => seedRawKey(tdb.db, `burst-${i}-${Date.now()}@example.com`)),
    );
    await sql`update api_keys set status = 'revoked' where id = ${seeded[5]!.id}`.execute(tdb.db);
    const r = await newResolver();
    const answers = await Promise.all(
      seeded.map((k) =>
        r.authenticate(k.raw).then(
          (rec) => rec.id,
          (err: GatewayError) => err.code,
        ),
      ),
    );
    expect(answers).toEqual(seeded.map((k, i) => (i === 5 ? 'invalid_api_key' : k.id)));
  });
});
