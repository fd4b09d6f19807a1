import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import OpenAI from 'openai';
import { announceKeyInvalidation } from '#libs/auth';
import { createRedis, type RedisClient, redisKeys } from '#libs/redis';
import { eventually, type Gateway, startGateway, testConfig } from '../support/gateway.js';

/**
 * Leased admission on real edges (docs/quota.md, "Leases"): a key warm on two edges, each holding
 * a lease of its headroom, is refused on both within a second of its revocation or its owner's
 * disabling, and the leases it held go back to the account.
 */
let gw: Gateway;
let redis: RedisClient;

beforeAll(async () => {
  gw = await startGateway('e2e-quota-leases', testConfig, { edges: 2 });
  redis = createRedis(gw.env.redis);
}, 60_000);
afterAll(async () => {
  redis?.disconnect();
  await gw?.close();
});

const clientsOf = (raw: string): OpenAI[] =>
  gw.edgeUrls.map((url) => new OpenAI({ baseURL: `${url}/v1`, apiKey: raw, maxRetries: 0 }));

const chat = (c: OpenAI): Promise<number | undefined> =>
  c.chat.completions.create({ model: 'mock-gpt', messages: [{ role: 'user', content: 'hi' }] }).then(
    () => 200,
    (e: InstanceType<typeof OpenAI.APIError>) => e.status,
  );

const leases = (userId: string): Promise<number> =>
  redis.hlen(redisKeys(gw.env.redisPrefix).quotaLeases(userId));

/** Every edge answers 401 within a second of `change`, then the key's leases go back. */
async function refusedEverywhere(
  key: { hash: string; userId: string },
  clients: OpenAI[],
  change: () => Promise<unknown>,
) {
  await change();
  await announceKeyInvalidation(redis, redisKeys(gw.env.redisPrefix), key.hash);
  const at = Date.now();
  for (const c of clients) {
    await eventually(async () => ((await chat(c)) === 401 ? true : undefined), 1000, 'refusal');
  }
  expect(Date.now() - at).toBeLessThan(1000);
  // Not used again: each edge hands its lease back once idle (5 s), the sweep looking every second.
  await eventually(async () => ((await leases(key.userId)) === 0 ? true : undefined), 8000, 'leases back');
}

describe('leases on two edges', () => {
  it('a revoked key is refused by every edge within a second, its leases handed back', async () => {
    const key = await gw.createKey({ email: 'lease-revoke@example.com' });
    const clients = clientsOf(key.raw);
    for (const c of clients) expect(await chat(c)).toBe(200);
    expect(await leases(key.userId)).toBe(2); // one lease per edge
    await refusedEverywhere(key, clients, () =>
      gw.db.db
        .updateTable('api_keys')
        .set({ status: 'revoked', revoked_at: new Date() })
        .where('id', '=', key.id)
        .execute(),
    );
  }, 20_000);

  it("a disabled user's key likewise", async () => {
    const key = await gw.createKey({ email: 'lease-disabled@example.com' });
    const clients = clientsOf(key.raw);
    for (const c of clients) expect(await chat(c)).toBe(200);
    expect(await leases(key.userId)).toBe(2);
    await refusedEverywhere(key, clients, () =>
      gw.db.db.updateTable('users').set({ status: 'disabled' }).where('id', '=', key.userId).execute(),
    );
  }, 20_000);
});
