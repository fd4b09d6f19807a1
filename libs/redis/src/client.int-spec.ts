import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { type AddressInfo, createServer, type Socket } from 'node:net';
import { Cluster } from 'ioredis';
import { type PrivateRedisCluster, startPrivateRedisCluster } from '../../../test/support/private-servers.js';
import { createRedis, deleteKeys, duplicateRedis, type RedisClient, scanKeys } from './client.js';
import { hashSlot } from './hash-slot.js';

let cluster: PrivateRedisCluster;
const open: RedisClient[] = [];

function connect(opts: Parameters<typeof createRedis>[1] = {}): RedisClient {
  const client = createRedis({ url: cluster.url, cluster: true }, opts);
  client.on('error', () => undefined);
  open.push(client);
  return client;
}

beforeAll(async () => {
  cluster = await startPrivateRedisCluster(3);
}, 60_000);

afterAll(async () => {
  for (const c of open) c.disconnect();
  await cluster?.destroy();
});

describe('createRedis on a Redis Cluster', () => {
  it('opens a cluster client whose keys land on every primary, and scans and deletes them all', async () => {
    const redis = connect({ name: 'client-int-spec' });
    expect(redis).toBeInstanceOf(Cluster);
    const keys = Array.from({ length: 60 }, (_, i) => `scan-test:${i}`);
    await Promise.all(keys.map((k) => redis.set(k, '1')));
    expect(new Set(keys.map((k) => hashSlot(k))).size).toBeGreaterThan(30);

    const found: string[] = [];
    for await (const page of scanKeys(redis, 'scan-test:*', 7)) {
      found.push(...page);
      await deleteKeys(redis, page);
    }
    expect(found.sort()).toEqual([...keys].sort());
    expect(await redis.exists(...keys.slice(0, 1))).toBe(0);
  });

  it('duplicates into a subscriber that hears a PUBLISH made through another node', async () => {
    const redis = connect();
    const sub = duplicateRedis(redis, 'client-int-spec-sub');
    open.push(sub);
    expect(sub).toBeInstanceOf(Cluster);
    const heard = new Promise<string>((resolve) => sub.on('message', (_c: string, m: string) => resolve(m)));
    await sub.subscribe('client-int-spec:channel');
    await redis.publish('client-int-spec:channel', 'hello');
    expect(await heard).toBe('hello');
  });

  it('bounds a command issued while the cluster cannot be reached (commandTimeoutMs)', async () => {
    // A seed that accepts connections and never answers: a partitioned network, as a client sees it.
    const sockets: Socket[] = [];
    const hole = createServer((socket) => sockets.push(socket));
    await new Promise<void>((ok) => hole.listen(0, '127.0.0.1', ok));
    const { port } = hole.address() as AddressInfo;
    try {
      const stuck = createRedis(
        { url: `redis://127.0.0.1:${port}`, cluster: true },
        { commandTimeoutMs: 300 },
      );
      stuck.on('error', () => undefined);
      open.push(stuck);
      // Per node, the bound covers the cluster's own slot discovery too: the command fails (rather
      // than wait in the cluster's queue while it reconnects) within about the bound.
      const started = Date.now();
      await expect(stuck.get('k')).rejects.toThrow(/timed out|startup nodes/);
      expect(Date.now() - started).toBeLessThan(1_000);
    } finally {
      for (const s of sockets) s.destroy();
      await new Promise((ok) => hole.close(ok));
    }
  });
});
