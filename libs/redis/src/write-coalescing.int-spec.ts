import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { type Socket } from 'node:net';
import { type Redis } from 'ioredis';
import { dropRedisPrefix, TEST_REDIS_URL, uniqueRedisPrefix } from '../../../test/support/redis.js';
import { createRedis } from './client.js';

const prefix = uniqueRedisPrefix('coalesce');
let redis: Redis;

/** Counts the socket's writes as they reach the kernel: one `_writev` for a corked batch. */
function countWrites(socket: Socket): { writes: number; chunks: number } {
  const seen = { writes: 0, chunks: 0 };
  const s = socket as Socket & {
    _write(chunk: unknown, enc: string, cb: () => void): void;
    _writev(chunks: unknown[], cb: () => void): void;
  };
  const write = s._write.bind(s);
  const writev = s._writev.bind(s);
  s._write = (chunk, enc, cb) => {
    seen.writes += 1;
    seen.chunks += 1;
    write(chunk, enc, cb);
  };
  s._writev = (chunks, cb) => {
    seen.writes += 1;
    seen.chunks += chunks.length;
    writev(chunks, cb);
  };
  return seen;
}

beforeAll(async () => {
  redis = createRedis(TEST_REDIS_URL, { name: 'write-coalescing-int-spec' });
  await redis.ping();
});

afterAll(async () => {
  redis.disconnect();
  await dropRedisPrefix(prefix);
});

describe('coalesceWrites (every connection createRedis opens)', () => {
  it('sends the commands of one turn of the event loop in one socket write, and answers each', async () => {
    const seen = countWrites(redis.stream as Socket);
    const replies = await Promise.all([
      redis.set(`${prefix}:a`, '1'),
      redis.incrby(`${prefix}:b`, 5),
      redis.eval('return ARGV[1]', 0, 'scripted'),
      redis.get(`${prefix}:a`),
    ]);
    expect(replies).toEqual(['OK', 5, 'scripted', '1']);
    expect(seen).toEqual({ writes: 1, chunks: 4 });
  });

  it('uncorks at the end of the turn: commands of later turns go out on their own', async () => {
    const seen = countWrites(redis.stream as Socket);
    for (let i = 0; i < 3; i++) expect(await redis.incr(`${prefix}:turns`)).toBe(i + 1);
    expect(seen).toEqual({ writes: 3, chunks: 3 });
  });

  it('keeps working across a reconnect (the new socket is corked, not the closed one)', async () => {
    const client = createRedis(TEST_REDIS_URL, { name: 'write-coalescing-reconnect' });
    try {
      await client.set(`${prefix}:r`, 'before');
      const first = client.stream;
      const back = new Promise((ok) => client.once('ready', ok));
      first.destroy();
      await back;
      expect(client.stream).not.toBe(first);
      const seen = countWrites(client.stream as Socket);
      expect(await Promise.all([client.get(`${prefix}:r`), client.set(`${prefix}:r`, 'after')])).toEqual([
        'before',
        'OK',
      ]);
      expect(seen.writes).toBe(1);
    } finally {
      client.disconnect();
    }
  });
});
