import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import OpenAI from 'openai';
import { type GatewayConfigInput } from '#libs/config';
import { getQuotaBalance, usageByDayAndModel } from '#libs/db';
import { logDetail } from '../../apps/console/src/logs/log-view.js';
import { eventually, type Gateway, startGateway, testConfigWithAnthropic } from '../support/gateway.js';

/**
 * A cached request through every client format is charged exactly what the vendor bills, to the
 * nanocredit: the mock answers with cache reads and writes in each vendor's own fields, and the
 * expected charge is computed here from the vendor's published formula, not from gateway code.
 */

/** Anthropic's published Sonnet prices (credits per million): input, output, read, 5m write, 1h write. */
const SONNET = { input: 3, output: 15, read: 0.3, w5m: 3.75, w1h: 6 };
/** OpenAI's gpt-4.1: input 2, cached input 0.5, output 8; no cache-write price (the fallback rule). */
const GPT41 = { input: 2, output: 8, read: 0.5 };
/** OpenAI's gpt-4o-audio-preview: text 2.5 in / 10 out, audio 40 in / 80 out (issue 31, item 6). */
const GPT4O_AUDIO = { input: 2.5, output: 10, audioInput: 40, audioOutput: 80 };
const READ = 800;
const W5M = 200;
const W1H = 100;
/** A prompt of about 1,250 mock tokens, well above the cached and written parts. */
const PROMPT = 'word '.repeat(1000);

function config(mockUrl: string): GatewayConfigInput {
  const base = testConfigWithAnthropic(mockUrl);
  const pricing: Record<string, GatewayConfigInput['models'][number]['pricing']> = {
    'mock-claude': {
      input_per_million: SONNET.input,
      output_per_million: SONNET.output,
      cache_read_per_million: SONNET.read,
      cache_write_5m_per_million: SONNET.w5m,
      cache_write_1h_per_million: SONNET.w1h,
    },
    'mock-gpt': {
      input_per_million: GPT41.input,
      output_per_million: GPT41.output,
      cache_read_per_million: GPT41.read,
    },
    // The test config's second OpenAI model, priced as the audio model for the audio case.
    'mock-gpt-renamed': {
      input_per_million: GPT4O_AUDIO.input,
      output_per_million: GPT4O_AUDIO.output,
      input_audio_per_million: GPT4O_AUDIO.audioInput,
      output_audio_per_million: GPT4O_AUDIO.audioOutput,
    },
  };
  return {
    ...base,
    models: base.models.map((m) => ({ ...m, pricing: pricing[m.id] ?? m.pricing })),
  };
}

let gw: Gateway;
let userId: string;
let openai: OpenAI;
let anthropic: Anthropic;

beforeAll(async () => {
  gw = await startGateway('e2e-usage-components', config);
  const key = await gw.createKey();
  userId = key.userId;
  openai = new OpenAI({ baseURL: `${gw.edgeUrl}/v1`, apiKey: key.raw, maxRetries: 0 });
  anthropic = new Anthropic({ baseURL: gw.edgeUrl, apiKey: key.raw, maxRetries: 0 });
  gw.mock.setBehaviour({ cachedTokens: READ, cacheWrite5mTokens: W5M, cacheWrite1hTokens: W1H });
}, 30_000);

afterAll(async () => {
  gw?.mock.reset();
  await gw?.close();
});

/** Usage in the vendor's billing terms: disjoint parts. */
interface Billed {
  readonly uncached: number;
  readonly read: number;
  readonly w5m: number;
  readonly w1h: number;
  readonly output: number;
}

/** credits per million x tokens = nanocredits x 1e-3 per token; all prices here are whole nanos per token. */
const nanosPerToken = (creditsPerMillion: number): bigint => BigInt(Math.round(creditsPerMillion * 1000));

/** Anthropic's bill: input, cache reads at 0.1x, 5-minute writes at 1.25x, 1-hour writes at 2x, output. */
const anthropicBill = (u: Billed): bigint =>
  BigInt(u.uncached) * nanosPerToken(SONNET.input) +
  BigInt(u.read) * nanosPerToken(SONNET.read) +
  BigInt(u.w5m) * nanosPerToken(SONNET.w5m) +
  BigInt(u.w1h) * nanosPerToken(SONNET.w1h) +
  BigInt(u.output) * nanosPerToken(SONNET.output);

/** OpenAI's bill: uncached and written input at the input price, cached input at its discount. */
const openAIBill = (u: Billed): bigint =>
  BigInt(u.uncached + u.w5m + u.w1h) * nanosPerToken(GPT41.input) +
  BigInt(u.read) * nanosPerToken(GPT41.read) +
  BigInt(u.output) * nanosPerToken(GPT41.output);

/** What an OpenAI-format client saw, in billing terms (its prompt total includes the cache). */
function fromOpenAIUsage(prompt: number, cached: number, writes: number, output: number): Billed {
  expect(cached).toBe(READ);
  expect(writes).toBe(W5M + W1H);
  return { uncached: prompt - cached - writes, read: cached, w5m: W5M, w1h: W1H, output };
}

/** What a Messages client saw: Anthropic's disjoint parts. */
function fromMessagesUsage(u: Anthropic.Usage): Billed {
  expect(u.cache_read_input_tokens).toBe(READ);
  expect(u.cache_creation_input_tokens).toBe(W5M + W1H);
  return {
    uncached: u.input_tokens,
    read: u.cache_read_input_tokens!,
    // Anthropic's rule: writes without a TTL split are 5-minute ones. The SDK's stream snapshot
    // keeps message_start's split, which a translated stream (usage known only at its end) zeroes.
    w5m: u.cache_creation_input_tokens! - (u.cache_creation?.ephemeral_1h_input_tokens ?? 0),
    w1h: u.cache_creation?.ephemeral_1h_input_tokens ?? 0,
    output: u.output_tokens,
  };
}

type ChatUsageWithWrites = OpenAI.CompletionUsage & {
  prompt_tokens_details?: { cached_tokens?: number; cache_write_tokens?: number };
};
const chatBilled = (u: ChatUsageWithWrites | undefined): Billed =>
  fromOpenAIUsage(
    u!.prompt_tokens,
    u!.prompt_tokens_details?.cached_tokens ?? 0,
    u!.prompt_tokens_details?.cache_write_tokens ?? 0,
    u!.completion_tokens,
  );
const responsesBilled = (u: OpenAI.Responses.ResponseUsage | undefined): Billed => {
  const details = u!.input_tokens_details as { cached_tokens: number; cache_write_tokens?: number };
  return fromOpenAIUsage(
    u!.input_tokens,
    details.cached_tokens,
    details.cache_write_tokens ?? 0,
    u!.output_tokens,
  );
};

/** One client format's call: what the client saw, in billing terms, and the request id. */
type Call = (model: string) => Promise<{ billed: Billed; requestId: string }>;

const user = (content: string) => [{ role: 'user' as const, content }];

const CALLS: Readonly<Record<string, Call>> = {
  chat: async (model) => {
    const { data, response } = await openai.chat.completions
      .create({ model, messages: user(PROMPT) })
      .withResponse();
    return { billed: chatBilled(data.usage), requestId: response.headers.get('x-request-id')! };
  },
  'chat (stream)': async (model) => {
    const { data, response } = await openai.chat.completions
      .create({ model, stream: true, stream_options: { include_usage: true }, messages: user(PROMPT) })
      .withResponse();
    let usage: OpenAI.CompletionUsage | undefined;
    for await (const chunk of data) usage = chunk.usage ?? usage;
    return { billed: chatBilled(usage), requestId: response.headers.get('x-request-id')! };
  },
  completions: async (model) => {
    const { data, response } = await openai.completions.create({ model, prompt: PROMPT }).withResponse();
    return { billed: chatBilled(data.usage), requestId: response.headers.get('x-request-id')! };
  },
  responses: async (model) => {
    const { data, response } = await openai.responses.create({ model, input: PROMPT }).withResponse();
    return { billed: responsesBilled(data.usage), requestId: response.headers.get('x-request-id')! };
  },
  'responses (stream)': async (model) => {
    const { data, response } = await openai.responses
      .create({ model, input: PROMPT, stream: true })
      .withResponse();
    let usage: OpenAI.Responses.ResponseUsage | undefined;
    for await (const event of data) if (event.type === 'response.completed') usage = event.response.usage;
    return { billed: responsesBilled(usage), requestId: response.headers.get('x-request-id')! };
  },
  messages: async (model) => {
    const { data, response } = await anthropic.messages
      .create({ model, max_tokens: 256, messages: user(PROMPT) })
      .withResponse();
    return { billed: fromMessagesUsage(data.usage), requestId: response.headers.get('x-request-id')! };
  },
  'messages (stream)': async (model) => {
    const stream = anthropic.messages.stream({ model, max_tokens: 256, messages: user(PROMPT) });
    const final = await stream.finalMessage();
    const { response } = await stream.withResponse();
    return { billed: fromMessagesUsage(final.usage), requestId: response.headers.get('x-request-id')! };
  },
};

const charged: bigint[] = [];
let savedNanos = 0n;

describe.each([
  { model: 'mock-claude', vendor: 'Anthropic', bill: anthropicBill },
  { model: 'mock-gpt', vendor: 'OpenAI', bill: openAIBill },
])('a cached $vendor request', ({ model, vendor, bill }) => {
  it.each(Object.keys(CALLS))(`through %s is charged as ${vendor} bills it`, async (format) => {
    const { billed, requestId } = await CALLS[format]!(model);
    // The OpenAI format has one write field: the mock reports OpenAI's writes as 5-minute ones.
    const vendorBilled = vendor === 'OpenAI' ? { ...billed, w5m: billed.w5m + billed.w1h, w1h: 0 } : billed;
    const expected = bill(vendorBilled);
    const row = await gw.logRow(requestId);
    expect(BigInt(row.cost_nanos)).toBe(expected);
    expect(row).toMatchObject({
      input_tokens: vendorBilled.uncached + READ + W5M + W1H,
      uncached_input_tokens: vendorBilled.uncached,
      cached_tokens: READ,
      cache_write_5m_tokens: vendorBilled.w5m,
      cache_write_1h_tokens: vendorBilled.w1h,
      output_tokens: vendorBilled.output,
      usage_estimated: false,
    });
    // The console's breakdown: each component at its price, summing to the charge.
    const usage = logDetail(row).usage!;
    const parts = [
      usage.uncachedInput,
      usage.cacheRead,
      usage.cacheWrite5m,
      usage.cacheWrite1h,
      usage.output,
    ];
    expect(parts.map((p) => p.tokens)).toEqual([
      vendorBilled.uncached,
      READ,
      vendorBilled.w5m,
      vendorBilled.w1h,
      vendorBilled.output,
    ]);
    const nanos = parts.reduce((sum, p) => sum + BigInt(Math.round(p.costCredits * 1e9)), 0n);
    expect(nanos).toBe(expected);
    expect(usage.cacheWrite5m.fallback).toBe(vendor === 'OpenAI');
    charged.push(expected);
    const input = nanosPerToken(vendor === 'OpenAI' ? GPT41.input : SONNET.input);
    savedNanos +=
      BigInt(READ) * (input - nanosPerToken(vendor === 'OpenAI' ? GPT41.read : SONNET.read)) +
      (vendor === 'OpenAI' ? 0n : BigInt(W5M) * (input - nanosPerToken(SONNET.w5m))) +
      (vendor === 'OpenAI' ? 0n : BigInt(W1H) * (input - nanosPerToken(SONNET.w1h)));
  });
});

describe('the balance and the usage report', () => {
  it('move by exactly the sum of the charges; the report shows cache hits and savings', async () => {
    const grant = BigInt(gw.config.worker.default_grant_credits) * 1_000_000_000n;
    const total = charged.reduce((a, b) => a + b, 0n);
    expect(charged).toHaveLength(2 * Object.keys(CALLS).length);
    await eventually(async () => {
      const balance = await getQuotaBalance(gw.db.db, userId);
      return balance && BigInt(balance.balance_nanos) === grant - total ? true : undefined;
    }, 10_000);
    const day = new Date();
    const rows = await usageByDayAndModel(
      gw.db.db,
      userId,
      new Date(day.getTime() - 86_400_000),
      new Date(day.getTime() + 86_400_000),
    );
    expect(rows.reduce((sum, r) => sum + BigInt(r.cost_nanos), 0n)).toBe(total);
    expect(rows.reduce((sum, r) => sum + BigInt(r.cache_savings_nanos), 0n)).toBe(savedNanos);
    for (const r of rows) expect(Number(r.cached_tokens)).toBe(READ * Object.keys(CALLS).length);
  });
});

describe('an OpenAI answer in speech (issue 31, item 6)', () => {
  /** The audited request: 17,300 text prompt tokens (4 characters a mock token), 1,000 audio output tokens. */
  const AUDIT_PROMPT = 'word '.repeat(13_840);
  const AUDIO_OUT = 1000;

  beforeAll(() => {
    // No cache, no text in the answer: its 1,000 output tokens are all audio.
    gw.mock.setBehaviour({
      cachedTokens: 0,
      cacheWrite5mTokens: 0,
      cacheWrite1hTokens: 0,
      reply: '',
      audioOutputTokens: AUDIO_OUT,
    });
  });
  afterAll(() => {
    gw.mock.setBehaviour({
      cachedTokens: READ,
      cacheWrite5mTokens: W5M,
      cacheWrite1hTokens: W1H,
      reply: null,
      audioOutputTokens: 0,
    });
  });

  it.each([false, true])(
    'charges its audio output at the audio output price (stream: %s)',
    async (stream) => {
      const { data, response } = await openai.chat.completions
        .create({
          model: 'mock-gpt-renamed',
          messages: user(AUDIT_PROMPT),
          ...(stream && { stream: true, stream_options: { include_usage: true } }),
        })
        .withResponse();
      let usage: OpenAI.CompletionUsage | undefined;
      if (stream)
        for await (const chunk of data as AsyncIterable<OpenAI.ChatCompletionChunk>)
          usage = chunk.usage ?? usage;
      else usage = (data as OpenAI.ChatCompletion).usage;
      expect(usage).toMatchObject({
        prompt_tokens: 17_300,
        completion_tokens: AUDIO_OUT,
        completion_tokens_details: { audio_tokens: AUDIO_OUT },
      });
      // OpenAI's bill: 17,300 x $2.50 + 1,000 x $80 per million; 53,250,000 when audio was output.
      const expected =
        17_300n * nanosPerToken(GPT4O_AUDIO.input) +
        BigInt(AUDIO_OUT) * nanosPerToken(GPT4O_AUDIO.audioOutput);
      expect(expected).toBe(123_250_000n);
      const row = await gw.logRow(response.headers.get('x-request-id')!);
      expect(BigInt(row.cost_nanos)).toBe(expected);
      expect(row).toMatchObject({
        output_tokens: AUDIO_OUT,
        audio_output_tokens: AUDIO_OUT,
        audio_input_tokens: 0,
      });
      const detail = logDetail(row).usage!;
      expect(detail.audioOutput).toEqual({
        tokens: AUDIO_OUT,
        pricePerMillion: 80,
        costCredits: 0.08,
        fallback: false,
      });
      expect(detail.output).toMatchObject({ tokens: 0, pricePerMillion: 10 });
      const parts = [
        detail.uncachedInput,
        detail.audioInput,
        detail.cacheRead,
        detail.output,
        detail.audioOutput,
      ];
      expect(parts.reduce((n, p) => n + BigInt(Math.round(p.costCredits * 1e9)), 0n)).toBe(expected);
    },
  );
});
