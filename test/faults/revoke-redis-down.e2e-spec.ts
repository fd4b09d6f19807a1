import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { type INestApplication } from '@nestjs/common';
import { type Redis } from 'ioredis';
import { createConsoleApp } from '../../apps/console/src/console.app.js';
import { keyLookupFromDb } from '../../apps/edge/src/auth/key-lookup.js';
import { KeyResolver } from '../../apps/edge/src/auth/key-resolver.service.js';
import { readEnv } from '#libs/config';
import { parseConfig } from '#libs/gateway-config';
import { createRedis, redisKeys } from '#libs/redis';
import { ConsoleClient } from '../support/console-client.js';
import { createTestDatabase, type TestDatabase } from '../support/db.js';
import { eventually, testConfig } from '../support/gateway.js';
import { refusal, seedRawKey } from '../support/keys.js';
import { type PrivateRedis, startPrivateRedis } from '../support/private-servers.js';
import { uniqueRedisPrefix } from '../support/redis.js';
import { recordFigures } from './fault-stack.js';

/**
 * Revoking a key while Redis is stopped: the revocation is stored and its announcement owed (202
 * `invalidation: pending`), and the console's outbox relay delivers it once Redis is back. Redis
 * keeps its data across the stop (AOF), so the stale cached copy of the key survives it: only the
 * announcement makes the edge refuse the key, not the restart.
 */
const ADMIN_TOKEN = 'revoke-redis-down-admin-token';
const prefix = uniqueRedisPrefix('revoke-down');
const keys = redisKeys(prefix);
const config = parseConfig(testConfig('http://127.0.0.1:1'));
let tdb: TestDatabase;
let server: PrivateRedis;
let app: INestApplication;
let admin: ConsoleClient;
let edgeRedis: Redis;
let edge: KeyResolver;

beforeAll(async () => {
  tdb = await createTestDatabase('revoke_down');
  server = await startPrivateRedis({ aof: true });
  const env = readEnv({
    REDIS_URL: server.url,
    REDIS_PREFIX: prefix,
    DATABASE_URL: tdb.url,
    CONSOLE_ADMIN_TOKEN: ADMIN_TOKEN,
  });
  app = await createConsoleApp(env, config);
  await app.listen(0, '127.0.0.1');
  admin = new ConsoleClient((await app.getUrl()).replace('[::1]', '127.0.0.1'), ADMIN_TOKEN);
  // The edge's key resolution, with the edge's bound on Redis commands.
  edgeRedis = createRedis(server.url, { name: 'edge', commandTimeoutMs: 200 });
  edgeRedis.on('error', () => undefined);
  edge = new KeyResolver(edgeRedis, keys, keyLookupFromDb(tdb.db), config);
  edge.onModuleInit();
  await edge.subscribed();
}, 60_000);

afterAll(async () => {
  await edge.onApplicationShutdown();
  edgeRedis.disconnect();
  await app.close();
  await server.destroy();
  await tdb.drop();
});

describe('revoking a key while Redis is down', () => {
  it('stores the revocation, says the announcement is pending, and delivers it once Redis is back', async () => {
    const { raw, id, hash } = await seedRawKey(tdb.db);
    expect((await edge.authenticate(raw)).id).toBe(id); // cached by the edge, in memory and Redis
    expect(await edgeRedis.get(keys.apiKey(hash))).toContain('"active"');
    await server.stop();

    const res = await admin.post(`/api/admin/keys/${id}/revoke`);
    expect({ status: res.status, body: res.body }).toMatchObject({
      status: 202,
      body: { key: { id, status: 'revoked' }, invalidation: 'pending' },
    });
    const owed = await tdb.db.selectFrom('key_invalidations').select('key_hash').execute();
    expect(owed).toEqual([{ key_hash: hash }]);

    await server.start();
    const backAt = Date.now();
    expect(await refusal(edge, raw, 15_000)).toMatchObject({ code: 'invalid_api_key' });
    const refusedAfterMs = Date.now() - backAt;
    // The console deletes the owed row once Redis acknowledged the announcement, which the edge can
    // act on first: the row goes a round trip after the refusal, not before it.
    const drained = await eventually(
      async () =>
        (await tdb.db.selectFrom('key_invalidations').select('key_hash').execute()).length === 0 || undefined,
      5_000,
      'the owed invalidation deleted',
    );
    expect(drained).toBe(true);
    recordFigures('revoke-redis-down', { refusedAfterRedisBackMs: refusedAfterMs });
  }, 60_000);

  it('announces again when a revoked key is revoked again', async () => {
    const { raw, id, hash } = await seedRawKey(tdb.db, 'again@example.com');
    await tdb.db.updateTable('api_keys').set({ status: 'revoked' }).where('id', '=', id).execute();
    const listener = createRedis(server.url, { name: 'listener' });
    const heard = new Promise<string>((resolve) =>
      listener.on('message', (_c: string, m: string) => resolve(m)),
    );
    await listener.subscribe(keys.keyInvalidationChannel);
    try {
      const res = await admin.post(`/api/admin/keys/${id}/revoke`);
      expect({ status: res.status, invalidation: res.body.invalidation }).toEqual({
        status: 200,
        invalidation: 'announced',
      });
      expect(await heard).toBe(hash);
      await expect(edge.authenticate(raw)).rejects.toMatchObject({ code: 'invalid_api_key' });
    } finally {
      listener.disconnect();
    }
  });
});
