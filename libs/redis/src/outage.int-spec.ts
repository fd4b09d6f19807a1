import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { type PrivateRedis, startPrivateRedis } from '../../../test/support/private-servers.js';
import { createRedis, duplicateRedis, type RedisClient } from './client.js';

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
    await new Promise((resolve) => client.once('ready', resolve));
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
