import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import OpenAI, { APIError } from 'openai';
import { createConsoleApp } from '../../apps/console/src/console.app.js';
import { type GatewayConfigInput } from '#libs/config';
import { createRedis, deleteMatching, hashSlot, type RedisClient, redisKeys, scanKeys } from '#libs/redis';
import { ConsoleClient } from '../support/console-client.js';
import { eventually, type Gateway, startGateway, testConfigWithAnthropic } from '../support/gateway.js';
import { type RoutesResponse } from '../../apps/router/src/routes/routes.controller.js';
import { type PrivateRedisCluster, startPrivateRedisCluster } from '../support/private-servers.js';

/**
 * The whole gateway (router, worker, edge, console) on a 3-primary Redis Cluster: keys, quota
 * scripts, provider-limit scripts, the request-log queue (BullMQ), the samples stream, the route
 * table and both pub/sub channels all run on nodes that each hold a third of the slots.
 */
let cluster: PrivateRedisCluster;
let gw: Gateway;
let redis: RedisClient;
let keys: ReturnType<typeof redisKeys>;
const PASSWORD = 'correct horse battery staple';

function config(mockUrl: string): GatewayConfigInput {
  const base = testConfigWithAnthropic(mockUrl);
  const [openai, ...others] = base.providers;
  return {
    ...base,
    // Limits make every request run the provider-limit script (concurrency set + rpm counter).
    providers: [{ ...openai!, limits: { max_concurrency: 8, rpm: 10_000 } }, ...others],
    // Group limits make admission touch the per-user rate counters as well as the balance.
    groups: {
      ...base.groups,
      default: { models: base.groups.default as string[], limits: { rpm: 1000, tpm: 1_000_000 } },
    },
    quota: { reconcile_interval_ms: 60_000 },
  };
}

beforeAll(async () => {
  cluster = await startPrivateRedisCluster(3);
  gw = await startGateway('e2e-cluster', config, { redis: { url: cluster.url, cluster: true } });
  redis = createRedis(gw.env.redis, { name: 'e2e-cluster' });
  keys = redisKeys(gw.env.redisPrefix);
}, 60_000);

afterAll(async () => {
  redis?.disconnect();
  await gw?.close();
  await cluster?.destroy();
});

const openai = (key: string): OpenAI =>
  new OpenAI({ baseURL: `${gw.edgeUrl}/v1`, apiKey: key, maxRetries: 0 });

/** Which primary holds each key of the prefix, by port. */
async function keysByNode(): Promise<Map<number, string[]>> {
  const out = new Map<number, string[]>();
  if (!('nodes' in redis)) throw new Error('not a cluster client');
  for (const node of redis.nodes('master')) {
    const found: string[] = [];
    for (const pattern of keys.allKeys) for await (const page of scanKeys(node, pattern)) found.push(...page);
    out.set(node.options.port!, found);
  }
  return out;
}

describe('the gateway on a Redis Cluster', () => {
  it('answers, streams, logs and charges every request, with state spread over the primaries', async () => {
    const key = await gw.createKey({ email: 'cluster@example.com' });
    const client = openai(key.raw);
    const ids: string[] = [];

    const chat = await client.chat.completions
      .create({ model: 'mock-gpt', messages: [{ role: 'user', content: 'Hi' }] })
      .withResponse();
    expect(chat.data.choices[0]!.message.content).toBeTruthy();
    ids.push(chat.response.headers.get('x-request-id')!);

    const stream = await client.chat.completions
      .create({ model: 'mock-gpt', stream: true, messages: [{ role: 'user', content: 'Hi' }] })
      .withResponse();
    let text = '';
    for await (const chunk of stream.data) text += chunk.choices[0]?.delta.content ?? '';
    expect(text.length).toBeGreaterThan(0);
    ids.push(stream.response.headers.get('x-request-id')!);

    const anthropic = new Anthropic({ baseURL: gw.edgeUrl, apiKey: key.raw, maxRetries: 0 });
    const message = await anthropic.messages
      .create({ model: 'mock-claude', max_tokens: 16, messages: [{ role: 'user', content: 'Hi' }] })
      .withResponse();
    expect(message.data.content[0]!.type).toBe('text');
    ids.push(message.response.headers.get('x-request-id')!);

    // The request-log queue (BullMQ on the `{prefix}` slot) reached the worker: rows and charges.
    for (const id of ids) {
      const row = await gw.logRow(id);
      expect(row.status).toBe(200);
      expect(Number(row.cost_nanos)).toBeGreaterThan(0);
    }
    const charges = await eventually(async () => {
      const rows = await gw.db.db
        .selectFrom('charges')
        .selectAll()
        .where('user_id', '=', key.userId)
        .execute();
      return rows.length === ids.length ? rows : undefined;
    }, 10_000);
    const charged = charges.reduce((sum, c) => sum + BigInt(c.amount_nanos), 0n);

    // The edge's settle script debited the same amount from the balance on the user's slot, and
    // the worker cleared the user's pending set once Postgres held the charges.
    const start = 10_000_000_000n;
    await eventually(
      async () => {
        const balance = await redis.get(keys.quotaBalance(key.userId));
        const pending = await redis.hlen(keys.quotaPending(key.userId));
        return balance === String(start - charged) && pending === 0 ? true : undefined;
      },
      10_000,
      'the Redis balance to match the ledger',
    );

    // The keys really are spread: quota on the user's slot, the queue on the prefix's, the key
    // cache on the key hash's; so every script and MULTI above ran on a sharded keyspace.
    const byNode = await keysByNode();
    const nodesHolding = [...byNode.values()].filter((k) => k.length > 0).length;
    expect(nodesHolding).toBeGreaterThanOrEqual(2);
    const owner = (k: string): number => [...byNode].find(([, ks]) => ks.includes(k))?.[0] ?? -1;
    expect(owner(keys.quotaBalance(key.userId))).toBeGreaterThan(0);
    expect(hashSlot(keys.quotaBalance(key.userId))).toBe(hashSlot(keys.quotaPending(key.userId)));
  }, 30_000);

  it('carries the route table and the edges samples through the cluster', async () => {
    const key = await gw.createKey({ email: 'cluster-samples@example.com' });
    await openai(key.raw).chat.completions.create({
      model: 'mock-gpt',
      messages: [{ role: 'user', content: 'Hi' }],
    });
    // Routes: the router's MULTI (SET + PUBLISH) and the edge's subscriber on another node.
    const health = await eventually(
      async () => {
        const h = (await (await fetch(`${gw.edgeUrl}/healthz`)).json()) as {
          routes: { source: string; version: number; stale: boolean };
          samples: { shipped: number };
        };
        return h.routes.source === 'router' && h.samples.shipped > 0 ? h : undefined;
      },
      10_000,
      'a routed table and shipped samples',
    );
    expect(health.routes.version).toBeGreaterThan(0);
    expect(health.routes.stale).toBe(false);
    // Samples: XADD from the edge, a blocking XREAD on the router's own connection; the leader's
    // report holds live figures for a candidate only once samples of it arrived.
    const detail = await eventually(
      async () => {
        const routes = (await (await fetch(`${gw.routerUrl}/routes`)).json()) as RoutesResponse;
        return routes.models['mock-gpt']?.find((c) => c.providerId === 'mock-openai')?.detail;
      },
      10_000,
      'the router to read the samples',
    );
    expect(detail.stats.windowSamples).toBeGreaterThan(0);
  }, 20_000);

  it('runs the console on it: session, a new key, and its revocation reaching the edge at once', async () => {
    // A console of its own with a first admin from the environment (the shared one has none).
    const app = await createConsoleApp(
      { ...gw.env, consoleAdminEmail: 'admin@example.com', consoleAdminPassword: PASSWORD },
      gw.config,
    );
    try {
      await app.listen(0, '127.0.0.1');
      const admin = new ConsoleClient((await app.getUrl()).replace('[::1]', '127.0.0.1'));
      await admin.signIn('admin@example.com', PASSWORD); // session and its per-user set in Redis
      expect((await admin.get('/api/session')).status).toBe(200);

      const created = await admin.post('/api/keys', { name: 'cluster', group: 'default' });
      expect(created.status).toBe(201);
      const client = openai(created.body.secret as string);
      await client.chat.completions.create({
        model: 'mock-gpt',
        messages: [{ role: 'user', content: 'Hi' }],
      });

      // Revoking: a MULTI (DEL cached key + PUBLISH) on the key's node; the edge's subscriber
      // hears it on whichever node it subscribed to.
      expect((await admin.post(`/api/keys/${created.body.key.id}/revoke`)).status).toBe(200);
      const refused = await eventually(
        async () => {
          const err = await client.models.list().then(
            () => undefined,
            (e: unknown) => e,
          );
          return err instanceof APIError && err.status === 401 ? err : undefined;
        },
        1_000,
        'the revoked key to be refused',
      );
      expect(refused.code).toBe('invalid_api_key');

      expect((await admin.post('/api/auth/sign-out')).status).toBeLessThan(300);
      expect((await admin.get('/api/session')).status).toBe(401);
    } finally {
      await app.close();
    }
  }, 20_000);

  it('rebuilds flushed quota state from Postgres, finding the keys on every primary', async () => {
    const users = await Promise.all(
      [1, 2, 3, 4, 5, 6].map((i) => gw.createKey({ email: `cluster-quota-${i}@example.com` })),
    );
    await Promise.all(
      users.map((u) =>
        openai(u.raw).chat.completions.create({
          model: 'mock-gpt',
          messages: [{ role: 'user', content: 'Hi' }],
        }),
      ),
    );
    // Settles leave the edge after the answer, so an empty pending set alone could be read before
    // the debit: wait for Postgres to hold each charge, then for Redis to show it and clear it.
    const start = 10_000_000_000n;
    const before = new Map<string, string>();
    for (const u of users) {
      const charged = await eventually(async () => {
        const rows = await gw.db.db
          .selectFrom('charges')
          .select('amount_nanos')
          .where('user_id', '=', u.userId)
          .execute();
        return rows.length === 1 ? BigInt(rows[0]!.amount_nanos) : undefined;
      }, 10_000);
      const expected = String(start - charged);
      await eventually(async () => {
        const pending = await redis.hlen(keys.quotaPending(u.userId));
        return pending === 0 && (await redis.get(keys.quotaBalance(u.userId))) === expected
          ? true
          : undefined;
      }, 10_000);
      before.set(u.userId, expected);
    }
    const slots = new Set(users.map((u) => hashSlot(keys.quotaBalance(u.userId))));
    expect(slots.size).toBe(users.length);

    const dropped = await deleteMatching(redis, [`${gw.env.redisPrefix}:quota:*`]);
    expect(dropped).toBeGreaterThanOrEqual(users.length);
    for (const u of users) expect(await redis.exists(keys.quotaBalance(u.userId))).toBe(0);

    const res = await fetch(`${gw.workerUrl}/quota/reconcile`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ userIds: users.map((u) => u.userId) }),
    });
    expect(res.status).toBe(200);
    for (const u of users) expect(await redis.get(keys.quotaBalance(u.userId))).toBe(before.get(u.userId));
  }, 30_000);
});
