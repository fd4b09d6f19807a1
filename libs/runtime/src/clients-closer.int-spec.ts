import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Inject, Injectable, Module, type OnApplicationShutdown } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { sql } from 'kysely';
import { createDb } from '#libs/db';
import { createRedis, type RedisClient } from '#libs/redis';
import { createTestDatabase, type TestDatabase } from '../../../test/support/db.js';
import { startPrivateRedis } from '../../../test/support/private-servers.js';
import { TEST_REDIS_URL } from '../../../test/support/redis.js';
import { clientsCloser } from './clients-closer.js';

const REDIS = Symbol('Redis');
const DB = Symbol('Db');
let t: TestDatabase;

beforeAll(async () => {
  t = await createTestDatabase('clients_closer');
});
afterAll(async () => {
  await t.drop();
});

describe('clientsCloser', () => {
  it('closes the Postgres pool and the Redis client when the app closes, not before', async () => {
    const redis = createRedis(TEST_REDIS_URL, { name: 'clients-closer' });
    const db = createDb(t.url, { poolSize: 1 });
    @Module({
      providers: [
        { provide: REDIS, useValue: redis },
        { provide: DB, useValue: db },
        clientsCloser(REDIS, DB),
      ],
    })
    class AppModule {}
    const app = await NestFactory.createApplicationContext(AppModule, { logger: false });
    expect(await redis.ping()).toBe('PONG');
    expect((await sql<{ one: number }>`select 1 as one`.execute(db)).rows).toEqual([{ one: 1 }]);

    const ended = new Promise((resolve) => redis.once('end', resolve));
    await app.close();
    await ended; // never, had the client been left open
    expect(redis.status).toBe('end');
    await expect(sql`select 1`.execute(db)).rejects.toThrow(/destroyed|ended|closed/i);
  });

  it('lets the commands other shutdown hooks issue reach Redis before QUIT', async () => {
    const redis = createRedis(TEST_REDIS_URL, { name: 'clients-closer-last-words' });
    const key = `clients-closer-${process.pid}-${Date.now()}`;
    let lastWrite: Promise<unknown> = Promise.resolve();
    // Like the edge's QuotaGate: it injects the client, so Nest puts its hook at the closer's level.
    @Injectable()
    class LastWords implements OnApplicationShutdown {
      constructor(@Inject(REDIS) private readonly client: RedisClient) {}

      onApplicationShutdown(): void {
        // Issued, not awaited, as the edge's final settles are.
        lastWrite = this.client.set(key, 'written', 'EX', 60);
      }
    }
    @Module({ providers: [{ provide: REDIS, useValue: redis }, clientsCloser(REDIS), LastWords] })
    class AppModule {}
    const app = await NestFactory.createApplicationContext(AppModule, { logger: false });
    await app.close();
    await expect(lastWrite).resolves.toBe('OK');
    const check = createRedis(TEST_REDIS_URL);
    try {
      expect(await check.get(key)).toBe('written');
    } finally {
      check.disconnect();
    }
  });

  it('drops a client whose Redis is known down at once: nothing to flush, no PING or QUIT to wait for', async () => {
    const redis = await startPrivateRedis();
    // The worker's BullMQ connection (a command waits for a reconnect for good) and the edge's
    // shared client (a command issued before the first failed reconnect waits in the offline queue).
    const bull = createRedis(redis.url, { name: 'clients-closer-bull', forBullmq: true });
    const edge = createRedis(redis.url, {
      name: 'clients-closer-edge',
      commandTimeoutMs: 500,
      failFastWhileDown: true,
    });
    const BULL = Symbol('BullRedis');
    @Module({
      providers: [
        { provide: REDIS, useValue: edge },
        { provide: BULL, useValue: bull },
        clientsCloser(REDIS, BULL),
      ],
    })
    class AppModule {}
    const app = await NestFactory.createApplicationContext(AppModule, { logger: false });
    try {
      expect(await bull.ping()).toBe('PONG');
      expect(await edge.ping()).toBe('PONG');
      const lost = Promise.all([bull, edge].map((c) => new Promise((resolve) => c.once('close', resolve))));
      await redis.kill();
      await lost;
      expect([bull.status, edge.status]).not.toContain('ready');
      const startedAt = Date.now();
      await app.close();
      const closeMs = Date.now() - startedAt;
      // Measured 1,000 ms before (QUIT_WAIT_MS, the PING never answered), 0-2 ms since.
      expect(closeMs).toBeLessThan(500);
    } finally {
      bull.disconnect();
      edge.disconnect();
      await redis.destroy();
    }
  });
});
