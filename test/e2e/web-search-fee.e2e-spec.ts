import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { type GatewayConfigInput } from '#libs/config';
import { getQuotaBalance } from '#libs/db';
import { logDetail } from '../../apps/console/src/logs/log-view.js';
import { eventually, type Gateway, startGateway, testConfigWithAnthropic } from '../support/gateway.js';

/**
 * Anthropic bills each search of its web search tool apart from tokens: $10 per 1,000 searches,
 * counted in `usage.server_tool_use.web_search_requests`. A Messages answer reporting 2 searches
 * is charged its tokens plus 2 x $0.01, computed here from Anthropic's published prices.
 */

/** Sonnet 4.5's published prices, credits per million tokens; searches per thousand. */
const SONNET = { input: 3, output: 15, searchesPerThousand: 10 };
const SEARCH_NANOS = 10_000_000n; // $10 / 1,000 = $0.01 = 1e7 nanocredits

function config(mockUrl: string): GatewayConfigInput {
  const base = testConfigWithAnthropic(mockUrl);
  return {
    ...base,
    models: base.models.map((m) =>
      m.id === 'mock-claude'
        ? {
            ...m,
            pricing: {
              input_per_million: SONNET.input,
              output_per_million: SONNET.output,
              fees_per_thousand: { web_search_requests: SONNET.searchesPerThousand },
            },
          }
        : m,
    ),
  };
}

let gw: Gateway;
let anthropic: Anthropic;
let userId: string;

beforeAll(async () => {
  gw = await startGateway('e2e-web-search-fee', config);
  const key = await gw.createKey();
  userId = key.userId;
  anthropic = new Anthropic({ baseURL: gw.edgeUrl, apiKey: key.raw, maxRetries: 0 });
  gw.mock.setBehaviour({ webSearchCount: 2 });
}, 30_000);

afterAll(async () => {
  gw?.mock.reset();
  await gw?.close();
});

const ask = {
  model: 'mock-claude',
  max_tokens: 256,
  messages: [{ role: 'user' as const, content: 'Please search the web for the Shannon limit' }],
  tools: [{ type: 'web_search_20250305' as const, name: 'web_search' as const, max_uses: 5 }],
};

/** Anthropic's bill for what the client saw: tokens at their prices, each search at its fee. */
const anthropicBill = (u: Anthropic.Usage): bigint =>
  BigInt(u.input_tokens) * 3_000n +
  BigInt(u.output_tokens) * 15_000n +
  BigInt(u.server_tool_use?.web_search_requests ?? 0) * SEARCH_NANOS;

const charged: bigint[] = [];

describe('a Messages answer with 2 web searches', () => {
  it.each([
    [
      'non-stream',
      async () => {
        const { data, response } = await anthropic.messages.create(ask).withResponse();
        return { usage: data.usage, requestId: response.headers.get('x-request-id')! };
      },
    ],
    [
      'stream',
      async () => {
        const stream = anthropic.messages.stream(ask);
        const final = await stream.finalMessage();
        const { response } = await stream.withResponse();
        return { usage: final.usage, requestId: response.headers.get('x-request-id')! };
      },
    ],
  ])('%s: is charged 2 x $0.01 on top of its tokens', async (_, call) => {
    const { usage, requestId } = await call();
    expect(usage.server_tool_use?.web_search_requests).toBe(2);
    const tokens = BigInt(usage.input_tokens) * 3_000n + BigInt(usage.output_tokens) * 15_000n;
    const row = await gw.logRow(requestId);
    expect(BigInt(row.cost_nanos)).toBe(tokens + 2n * SEARCH_NANOS);
    expect(BigInt(row.cost_nanos)).toBe(anthropicBill(usage));
    expect(row.web_search_requests).toBe(2);
    // The console's log detail lists the fee beside the tokens, and they add up to the charge.
    const detail = logDetail(row).usage!;
    expect(detail.fees).toEqual([
      { counter: 'web_search_requests', count: 2, pricePerThousand: 10, costCredits: 0.02 },
    ]);
    const parts = [detail.uncachedInput, detail.audioInput, detail.output].map((c) => c.costCredits);
    const total = [...parts, ...detail.fees.map((f) => f.costCredits)].reduce((a, b) => a + b, 0);
    expect(Math.round(total * 1e9)).toBe(Number(row.cost_nanos));
    charged.push(BigInt(row.cost_nanos));
  });

  it('moves the balance by exactly the charges', async () => {
    expect(charged).toHaveLength(2);
    const grant = BigInt(gw.config.worker.default_grant_credits) * 1_000_000_000n;
    const total = charged.reduce((a, b) => a + b, 0n);
    await eventually(async () => {
      const balance = await getQuotaBalance(gw.db.db, userId);
      return balance && BigInt(balance.balance_nanos) === grant - total ? true : undefined;
    }, 10_000);
  });
});
