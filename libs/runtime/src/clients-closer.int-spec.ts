import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Inject, Injectable, Module, type OnApplicationShutdown } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { sql } from 'kysely';
import { createDb } from '#libs/db';
import { createRedis, type RedisClient } from '#libs/redis';
import { createTestDatabase, type TestDatabase } from '../../../test/support/db.js';
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
});
