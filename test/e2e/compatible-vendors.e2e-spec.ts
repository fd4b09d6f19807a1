import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { type GatewayConfigInput } from '#libs/config';
import { type openaiCompatible } from '#libs/providers';

type CompatibleVendor = openaiCompatible.CompatibleVendor;
import { type Gateway, startGateway, testConfig } from '../support/gateway.js';

/**
 * `vendor:` on an `openai-compatible` provider picks the profile its translated requests get: an
 * Anthropic client reaching Groq sends its limit as `max_completion_tokens` and never the fields
 * Groq refuses, while a generic server (vLLM, Ollama) gets `max_tokens`. One mock plays all three
 * under /compat/v1; a model per provider says which profile a request must go through.
 */
let gw: Gateway;
let client: Anthropic;

const PROVIDERS: ReadonlyArray<{ id: string; vendor?: CompatibleVendor; model: string }> = [
  { id: 'p-vllm', model: 'm-vllm' },
  { id: 'p-groq', vendor: 'groq', model: 'm-groq' },
  { id: 'p-deepseek', vendor: 'deepseek', model: 'm-deepseek' },
];

function config(mockUrl: string): GatewayConfigInput {
  const base = testConfig(mockUrl);
  return {
    ...base,
    providers: PROVIDERS.map(({ id, vendor, model }) => ({
      id,
      type: 'openai-compatible' as const,
      ...(vendor && { vendor }),
      base_url: `${mockUrl}/compat/v1`,
      models: [model],
    })),
    models: PROVIDERS.map(({ model }) => ({ ...base.models[0]!, id: model })),
    groups: { default: PROVIDERS.map((p) => p.model) },
  };
}

beforeAll(async () => {
  gw = await startGateway('e2e-compat-vendors', config);
  const key = await gw.createKey();
  client = new Anthropic({ baseURL: gw.edgeUrl, apiKey: key.raw, maxRetries: 0 });
}, 30_000);

afterAll(async () => {
  await gw?.close();
});

/** One Anthropic request to `model`, then the body the mock received for it. */
async function upstreamBodyOf(
  model: string,
  messages: Anthropic.MessageParam[] = [{ role: 'user', content: 'Hello vendors' }],
): Promise<Record<string, unknown>> {
  const before = gw.mock.requests.length;
  const msg = await client.messages.create({ model, max_tokens: 300, messages });
  expect(msg.content[0]).toMatchObject({ type: 'text', text: expect.stringMatching(/mock reply/) });
  const sent = gw.mock.requests.slice(before).filter((r) => r.path === '/compat/v1/chat/completions');
  expect(sent).toHaveLength(1);
  return sent[0]!.body as Record<string, unknown>;
}

describe('openai-compatible vendor profiles', () => {
  it('generic (no vendor): the limit as max_tokens', async () => {
    const body = await upstreamBodyOf('m-vllm');
    expect(body.max_tokens).toBe(300);
    expect(body).not.toHaveProperty('max_completion_tokens');
  });

  it('groq: the limit as max_completion_tokens, which Groq reads', async () => {
    const body = await upstreamBodyOf('m-groq');
    expect(body.max_completion_tokens).toBe(300);
    expect(body).not.toHaveProperty('max_tokens');
  });

  it('deepseek: the limit as max_tokens, and earlier reasoning never sent back (DeepSeek answers 400)', async () => {
    const body = await upstreamBodyOf('m-deepseek', [
      { role: 'user', content: 'What is 2+2?' },
      {
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: 'Two and two make four.', signature: 'sig' },
          { type: 'text', text: '4' },
        ],
      },
      { role: 'user', content: 'And 3+3?' },
    ]);
    expect(body.max_tokens).toBe(300);
    const messages = body.messages as Array<Record<string, unknown>>;
    expect(messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
    expect(messages[1]).toMatchObject({ content: '4' });
    for (const m of messages) expect(m).not.toHaveProperty('reasoning_content');
  });
});
