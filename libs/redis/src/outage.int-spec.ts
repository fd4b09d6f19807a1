import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { type PrivateRedis, startPrivateRedis } from '../../../test/support/private-servers.js';
import { createRedis, duplicateRedis, type RedisClient } from './client.js';
import { redisOutages } from './outage-log.js';

/** Clients while their Redis is down, on a private redis-server the test stops and starts. */
let server: PrivateRedis;
const open: RedisClient[] = [];

beforeAll(async () => {
  server = await startPrivateRedis();
}, 30_000);

afterAll(async () => {
  for (const c of open) c.disconnect();
  await server?.destroy();
});

function failed(client: RedisClient): Promise<void> {
  return new Promise((resolve) => client.once('error', () => resolve()));
}

describe('Redis clients while Redis is down', () => {
  it('a client closed while it waits to reconnect stops counting as down (ioredis emits no end for it)', async () => {
    await server.stop();
    const client = createRedis(server.url, { name: 'outage-int-closed' });
    await new Promise((resolve) => client.once('reconnecting', resolve));
    expect(redisOutages.reachable).toBe(false);
    let ended = false;
    client.once('end', () => (ended = true));
    client.disconnect();
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect({ status: client.status, ended }).toEqual({ status: 'reconnecting', ended: false });
    expect(redisOutages.reachable).toBe(true);
    await server.start();
  }, 30_000);

  it('failFastWhileDown: after a failed connect a command fails at once, not at its timeout; queues again once ready', async () => {
    await server.stop();
    const client = createRedis(server.url, {
      name: 'outage-int',
      commandTimeoutMs: 60_000,
      failFastWhileDown: true,
    });
    open.push(client);
    await failed(client);
    await expect(client.get('k')).rejects.toThrow(/enableOfflineQueue/);

    await server.start();
    // start() resolves once the server answers PING: the client may have reconnected before that.
    if (client.status !== 'ready') await new Promise((resolve) => client.once('ready', resolve));
    await expect(client.get('k')).resolves.toBeNull();
  }, 30_000);

  it('duplicateRedis without a retry limit: a SUBSCRIBE issued while Redis is down takes effect once it is back', async () => {
    const publisher = createRedis(server.url, { name: 'outage-int-pub' });
    open.push(publisher);
    await server.stop();
    const sub = duplicateRedis(publisher, 'outage-int-sub', { maxRetriesPerRequest: null });
    open.push(sub);
    const heard = new Promise<string>((resolve) => sub.on('message', (_c: string, m: string) => resolve(m)));
    const subscribed = sub.subscribe('outage-int:channel');
    // Several reconnect attempts fail meanwhile: more than maxRetriesPerRequest's 2.
    for (let i = 0; i < 4; i++) await failed(sub);

    await server.start();
    await subscribed;
    await publisher.publish('outage-int:channel', 'back');
    expect(await heard).toBe('back');
  }, 30_000);
});
