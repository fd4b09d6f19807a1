import { readFileSync } from 'node:fs';
import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { type GatewayConfigInput } from '#libs/config';
import { type Gateway, startGateway, testConfigWithAnthropic } from '../support/gateway.js';

/**
 * An agent's long session: 120+ turns of tool calls and results with images, about 30 MB, as
 * Anthropic accepts it (32 MB). It must pass through natively and translated, within the default
 * body limit; and large bodies in flight stay within the edge's memory budget.
 */
let gw: Gateway;
let key: string;

function config(mockUrl: string): GatewayConfigInput {
  const base = testConfigWithAnthropic(mockUrl);
  const compatible = {
    id: 'mock-compatible',
    type: 'openai-compatible' as const,
    base_url: `${mockUrl}/compat/v1`,
  };
  return {
    ...base,
    providers: [...base.providers, { ...compatible, models: ['mock-long'] }],
    models: [...base.models, { ...base.models[0]!, id: 'mock-long' }],
    groups: { ...base.groups, default: [...(base.groups.default as string[]), 'mock-long'] },
  };
}

beforeAll(async () => {
  gw = await startGateway('e2e-long-sessions', config);
  key = (await gw.createKey()).raw;
}, 30_000);

afterAll(async () => {
  await gw?.close();
});

/** A PNG signature padded to about 1 MB of base64, as a screenshot in a session would be. */
const IMAGE_DATA = 'iVBORw0KGgo'.padEnd(1_000_000, 'A');

/** Claude Code's recorded tool turn, grown to `turns` tool calls with a ~1 MB image every 7th turn. */
function longSession(turns: number): Record<string, unknown> {
  const recorded = JSON.parse(readFileSync('test/fixtures/agents/claude-code.messages.3.json', 'utf8')) as {
    body: { messages: unknown[] } & Record<string, unknown>;
  };
  const { context_management: _c, ...body } = recorded.body;
  const history: unknown[] = [recorded.body.messages[0]];
  const image = { type: 'image', source: { type: 'base64', media_type: 'image/png', data: IMAGE_DATA } };
  for (let i = 0; i < turns; i++) {
    const id = `toolu_${String(i).padStart(6, '0')}`;
    history.push({
      role: 'assistant',
      content: [{ type: 'tool_use', id, name: 'Bash', input: { command: `cat file${i}` } }],
    });
    const result = { type: 'tool_result', tool_use_id: id, content: `output ${i} `.repeat(8_000) };
    history.push({ role: 'user', content: i % 7 === 0 ? [result, image] : [result] });
  }
  history.push({ role: 'user', content: 'Summarise what you found.' });
  return { ...body, messages: history };
}

describe('a 130-turn session of about 30 MB', () => {
  const body = longSession(130);
  const size = Buffer.byteLength(JSON.stringify(body));

  it.each(['mock-claude', 'mock-long'])(
    'streams through to %s and is read by the SDK',
    async (model) => {
      expect(size).toBeGreaterThan(25 * 1024 * 1024);
      expect(size).toBeLessThan(32 * 1024 * 1024);
      const client = new Anthropic({ baseURL: gw.edgeUrl, apiKey: key, maxRetries: 0, timeout: 60_000 });
      const params = { ...body, model } as unknown as Anthropic.MessageStreamParams;
      const message = await client.messages.stream(params).finalMessage();
      expect(message.content.some((b) => b.type === 'text')).toBe(true);
      const upstream = gw.mock.requests.filter((r) => r.method === 'POST').at(-1)!;
      expect(JSON.stringify(upstream.body).length).toBeGreaterThan(25 * 1024 * 1024);
    },
    60_000,
  );
});

describe('the large-body memory budget', () => {
  let small: Gateway;

  beforeAll(async () => {
    small = await startGateway('e2e-large-bodies', (url) => {
      const base = testConfigWithAnthropic(url);
      return {
        ...base,
        edge: { ...base.edge, large_body_bytes: 1024 * 1024, large_bodies_budget_bytes: 3 * 1024 * 1024 },
      };
    });
  }, 30_000);

  afterAll(async () => {
    await small?.close();
  });

  it('refuses a large body beyond the budget with 503 overloaded before reading it, then admits it again', async () => {
    const raw = (await small.createKey()).raw;
    const client = new Anthropic({ baseURL: small.edgeUrl, apiKey: raw, maxRetries: 0 });
    const big = {
      ...longSession(10),
      model: 'mock-claude',
      stream: false,
      max_tokens: 1024,
      thinking: undefined,
    } as unknown as Anthropic.MessageCreateParamsNonStreaming;
    const size = Buffer.byteLength(JSON.stringify(big));
    expect(size).toBeGreaterThan(2 * 1024 * 1024);
    small.mock.setBehaviour({ latencyMs: 1_000 });
    try {
      const held = client.messages.create(big);
      // The first body is in flight once the mock received it.
      const deadline = Date.now() + 10_000;
      while (!small.mock.requests.some((r) => r.method === 'POST') && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 20));
      const refused = (await client.messages.create(big).catch((e: unknown) => e)) as InstanceType<
        typeof Anthropic.APIError
      >;
      expect(refused.status).toBe(503);
      expect(refused.error).toMatchObject({ type: 'error', error: { type: 'overloaded_error' } });
      expect(refused.headers?.get('retry-after')).toBe('1');
      // A small request is never counted against the budget.
      const tiny = await client.messages.create({
        model: 'mock-claude',
        max_tokens: 5,
        messages: [{ role: 'user', content: 'hi' }],
      });
      expect(tiny.type).toBe('message');
      await held;
      small.mock.setBehaviour({ latencyMs: 0 });
      const again = await client.messages.create(big);
      expect(again.type).toBe('message');
    } finally {
      small.mock.reset();
    }
  }, 60_000);
});
