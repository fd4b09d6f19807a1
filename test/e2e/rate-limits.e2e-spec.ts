import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import OpenAI, { APIError } from 'openai';
import { type Gateway, startGateway, testConfig } from '../support/gateway.js';

let gw: Gateway;

beforeAll(async () => {
  gw = await startGateway(
    'e2e-rate-limits',
    (url) => {
      const base = testConfig(url);
      return {
        ...base,
        groups: {
          ...base.groups,
          limited: { models: ['mock-gpt'], limits: { rpm: 10 } },
          metered: { models: ['mock-gpt'], limits: { tpm: 60 } },
        },
      };
    },
    { edges: 2 },
  );
}, 30_000);

afterAll(async () => {
  await gw?.close();
});

/** Counters are per calendar minute: start a burst well inside one, so it cannot straddle two. */
/** Up to 8 s of waiting for a fresh minute plus the burst: more than jest's default 5 s. */
const MINUTE_BOUND_TEST_MS = 30_000;

async function insideOneMinute(): Promise<void> {
  const left = 60_000 - (Date.now() % 60_000);
  if (left < 8_000) await new Promise((r) => setTimeout(r, left + 50));
}

/** A key (its own user) with optional key limits, set before the key is first used. */
async function limitedKey(
  email: string,
  group: string,
  limits: { rpm_limit?: number; tpm_limit?: number } = {},
): Promise<{ raw: string; clients: OpenAI[] }> {
  const key = await gw.createKey({ email, group });
  if (Object.keys(limits).length > 0)
    await gw.db.db.updateTable('api_keys').set(limits).where('id', '=', key.id).execute();
  // One client per edge: the limit must hold across both, not per edge.
  const clients = gw.edgeUrls.map(
    (url) => new OpenAI({ baseURL: `${url}/v1`, apiKey: key.raw, maxRetries: 0 }),
  );
  return { raw: key.raw, clients };
}

const chat = (c: OpenAI) =>
  c.chat.completions.create({ model: 'mock-gpt', messages: [{ role: 'user', content: 'Hi' }] });

/** Fires `count` requests at once, alternating edges; returns the successes and the 429 errors. */
async function burst(
  clients: readonly OpenAI[],
  count: number,
): Promise<{ ok: number; limited: APIError[] }> {
  const results = await Promise.allSettled(
    Array.from({ length: count }, (_, i) => chat(clients[i % clients.length]!)),
  );
  const limited: APIError[] = [];
  let ok = 0;
  for (const r of results) {
    if (r.status === 'fulfilled') ok++;
    else if (r.reason instanceof APIError && r.reason.status === 429) limited.push(r.reason);
    else throw r.reason;
  }
  return { ok, limited };
}

function expectRateLimited(err: APIError): void {
  expect(err.status).toBe(429);
  expect(err.code).toBe('rate_limit_exceeded');
  expect(err.type).toBe('rate_limit_error');
  const retryAfter = Number(err.headers?.get('retry-after'));
  expect(Number.isInteger(retryAfter)).toBe(true);
  expect(retryAfter).toBeGreaterThanOrEqual(1);
  expect(retryAfter).toBeLessThanOrEqual(60);
}

describe('rate limits across two edges sharing Redis', () => {
  it(
    'a key rpm limit admits exactly that many requests per minute, not that many per edge',
    async () => {
      const { clients } = await limitedKey('rpm-key@example.com', 'default', { rpm_limit: 6 });
      await insideOneMinute();
      const { ok, limited } = await burst(clients, 30);
      expect(ok).toBe(6);
      expect(limited).toHaveLength(24);
      for (const err of limited) expectRateLimited(err);
      expect(limited[0]!.message).toMatch(/this API key: 6 requests per minute/);
    },
    MINUTE_BOUND_TEST_MS,
  );

  it(
    'a group rpm limit holds for each user of the group across both edges',
    async () => {
      const a = await limitedKey('group-a@example.com', 'limited');
      const b = await limitedKey('group-b@example.com', 'limited');
      await insideOneMinute();
      const [ra, rb] = await Promise.all([burst(a.clients, 25), burst(b.clients, 25)]);
      expect(ra.ok).toBe(10);
      expect(rb.ok).toBe(10);
      expect(ra.limited[0]!.message).toMatch(/group limited: 10 requests per minute/);
      for (const err of [...ra.limited, ...rb.limited]) expectRateLimited(err);
    },
    MINUTE_BOUND_TEST_MS,
  );

  it(
    'a tpm limit refuses once the minute holds that many tokens, overshooting by less than one request',
    async () => {
      const { raw, clients } = await limitedKey('tpm-group@example.com', 'metered');
      await insideOneMinute();
      let tokens = 0;
      let perRequest = 0;
      let refusal: APIError | null = null;
      for (let i = 0; i < 60 && refusal === null; i++) {
        try {
          const res = await chat(clients[i % 2]!);
          perRequest = res.usage!.total_tokens;
          tokens += perRequest;
        } catch (err) {
          if (!(err instanceof APIError)) throw err;
          refusal = err;
        }
        // Tokens are counted when a request settles (after its response): let the debit land.
        await new Promise((r) => setTimeout(r, 20));
      }
      expect(refusal).not.toBeNull();
      expectRateLimited(refusal!);
      expect(refusal!.message).toMatch(/group metered: 60 tokens per minute/);
      expect(tokens).toBeGreaterThanOrEqual(60);
      expect(tokens).toBeLessThan(60 + perRequest);

      // Raw: shape A with the catalogue's type and code, and retry-after.
      const res = await fetch(`${gw.edgeUrls[1]}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${raw}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'mock-gpt', messages: [{ role: 'user', content: 'Hi' }] }),
      });
      expect(res.status).toBe(429);
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(await res.json()).toEqual({
        error: {
          message: expect.stringMatching(/tokens per minute/),
          type: 'rate_limit_error',
          code: 'rate_limit_exceeded',
          param: null,
        },
      });
    },
    MINUTE_BOUND_TEST_MS,
  );

  it(
    '/v1/messages answers a rate limit in shape B with rate_limit_error and retry-after',
    async () => {
      const { raw } = await limitedKey('messages@example.com', 'default', { rpm_limit: 2 });
      await insideOneMinute();
      const hello = {
        model: 'mock-gpt',
        max_tokens: 50,
        messages: [{ role: 'user' as const, content: 'Hi' }],
      };
      const clients = gw.edgeUrls.map((url) => new Anthropic({ baseURL: url, apiKey: raw, maxRetries: 0 }));
      const results = await Promise.allSettled(
        Array.from({ length: 6 }, (_, i) => clients[i % 2]!.messages.create(hello)),
      );
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(2);
      const refused = results.flatMap((r) => (r.status === 'rejected' ? [r.reason as unknown] : []));
      expect(refused).toHaveLength(4);
      for (const err of refused) {
        expect(err).toBeInstanceOf(Anthropic.RateLimitError);
        const e = err as InstanceType<typeof Anthropic.RateLimitError>;
        expect(e.error).toEqual({
          type: 'error',
          error: { type: 'rate_limit_error', message: expect.stringMatching(/2 requests per minute/) },
        });
        expect(Number(e.headers?.get('retry-after'))).toBeGreaterThanOrEqual(1);
      }
    },
    MINUTE_BOUND_TEST_MS,
  );

  it('keys without limits are not limited', async () => {
    const { clients } = await limitedKey('free@example.com', 'default');
    const { ok } = await burst(clients, 40);
    expect(ok).toBe(40);
  });
});
