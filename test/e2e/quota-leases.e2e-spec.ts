import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import OpenAI from 'openai';
import { announceKeyInvalidation } from '#libs/auth';
import { createRedis, type RedisClient, redisKeys } from '#libs/redis';
import { eventually, type Gateway, startGateway, testConfig } from '../support/gateway.js';

/**
 * Leased admission on real edges (docs/quota.md, "Leases"): a key warm on two edges, each holding
 * a lease of its headroom, is refused on both once its revocation or its owner's disabling is
 * announced, long before the edges' key cache could have let it go, and the leases it held go
 * back to the account.
 */
let gw: Gateway;
let redis: RedisClient;

/** How long an edge may keep a resolved key without asking again (the default, stated here). */
const KEY_CACHE_TTL_MS = 60_000;

beforeAll(async () => {
  gw = await startGateway(
    'e2e-quota-leases',
    (mockUrl) => {
      const config = testConfig(mockUrl);
      return { ...config, edge: { ...config.edge, key_cache_ttl_ms: KEY_CACHE_TTL_MS } };
    },
    { edges: 2 },
  );
  redis = createRedis(gw.env.redis);
}, 60_000);
afterAll(async () => {
  redis?.disconnect();
  await gw?.close();
}, 60_000);

const clientsOf = (raw: string): OpenAI[] =>
  gw.edgeUrls.map((url) => new OpenAI({ baseURL: `${url}/v1`, apiKey: raw, maxRetries: 0 }));

const chat = (c: OpenAI): Promise<number | undefined> =>
  c.chat.completions.create({ model: 'mock-gpt', messages: [{ role: 'user', content: 'hi' }] }).then(
    () => 200,
    (e: InstanceType<typeof OpenAI.APIError>) => e.status,
  );

const leases = (userId: string): Promise<number> =>
  redis.hlen(redisKeys(gw.env.redisPrefix).quotaLeases(userId));

/**
 * Every edge answers 401 once `change` is announced, then the key's leases go back. `warmedAt` is
 * taken before the edges first resolved the key, so none of their cached copies expires before
 * `warmedAt + KEY_CACHE_TTL_MS`: the refusals are awaited until half that at most, a bound no
 * loaded machine comes near (it is no latency target; the bench measures that) that still makes
 * every refusal the pushed invalidation's doing, never the key cache's expiry.
 */
async function refusedEverywhere(
  key: { hash: string; userId: string },
  clients: OpenAI[],
  warmedAt: number,
  change: () => Promise<unknown>,
) {
  await change();
  await announceKeyInvalidation(redis, redisKeys(gw.env.redisPrefix), key.hash);
  const deadline = warmedAt + KEY_CACHE_TTL_MS / 2;
  for (const c of clients) {
    await eventually(
      async () => ((await chat(c)) === 401 ? true : undefined),
      deadline - Date.now(),
      'refusal while the key is still cached',
    );
  }
  // Not used again: each edge hands its lease back once idle (5 s) or ended (10 s), the sweep
  // looking every second; the bound only stops a broken hand-back from hanging the test.
  await eventually(async () => ((await leases(key.userId)) === 0 ? true : undefined), 20_000, 'leases back');
}

describe('leases on two edges', () => {
  it('a revoked key is refused by every edge while they still cache it, its leases handed back', async () => {
    const key = await gw.createKey({ email: 'lease-revoke@example.com' });
    const clients = clientsOf(key.raw);
    const warmedAt = Date.now();
    for (const c of clients) expect(await chat(c)).toBe(200);
    expect(await leases(key.userId)).toBe(2); // one lease per edge
    await refusedEverywhere(key, clients, warmedAt, () =>
      gw.db.db
        .updateTable('api_keys')
        .set({ status: 'revoked', revoked_at: new Date() })
        .where('id', '=', key.id)
        .execute(),
    );
  }, 60_000);

  it("a disabled user's key likewise", async () => {
    const key = await gw.createKey({ email: 'lease-disabled@example.com' });
    const clients = clientsOf(key.raw);
    const warmedAt = Date.now();
    for (const c of clients) expect(await chat(c)).toBe(200);
    expect(await leases(key.userId)).toBe(2);
    await refusedEverywhere(key, clients, warmedAt, () =>
      gw.db.db.updateTable('users').set({ status: 'disabled' }).where('id', '=', key.userId).execute(),
    );
  }, 60_000);
});
