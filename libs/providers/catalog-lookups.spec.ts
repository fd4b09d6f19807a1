import { readFileSync } from 'node:fs';
import { describe, expect, it } from '@jest/globals';
import { CATALOG, comparePricing, type ProposeOptions, proposePricing } from '#libs/price-catalog';
import { descriptorOf } from './registry.js';

/** The catalog's data as of the pinned release (see CATALOG); a dependency bump updates these. */
/**
 * The catalog's proposal for a model as a provider of `type` serves it: the lookup its descriptor
 * makes of the entry's settings (a profile, a base URL, a location), then the catalog's prices.
 */
function propose(
  type: string,
  model: string,
  settings: { baseUrl?: string; location?: string; vendor?: string } & ProposeOptions = {},
) {
  const entry = {
    id: 'p',
    type,
    base_url: settings.baseUrl ?? 'https://example.invalid',
    location: settings.location,
    vendor: settings.vendor,
  };
  return proposePricing(descriptorOf(type).catalog(entry as never, model), { at: settings.at });
}

describe('catalog lookups', () => {
  it('dates the catalog by the installed release', () => {
    const installed = JSON.parse(
      readFileSync('node_modules/@pydantic/genai-prices/package.json', 'utf8'),
    ) as { version: string };
    // Bumping the dependency without the date would show old-dated prices as new ones.
    expect(installed.version).toBe(CATALOG.version);
    expect(CATALOG.date).toMatch(/^\d{4}-\d{2}-\d{2}$/);
  });

  it('proposes a known model: every cache price, the web search fee, the context window', () => {
    const p = propose('anthropic', 'claude-haiku-4-5')!;
    expect(p.pricing).toEqual({
      input_per_million: 1,
      output_per_million: 5,
      cache_read_per_million: 0.1,
      cache_write_5m_per_million: 1.25,
      cache_write_1h_per_million: 2,
      fees_per_thousand: { web_search_requests: 10 },
    });
    expect(p.contextWindow).toBe(200_000);
    expect(p.catalog).toEqual({ package: '@pydantic/genai-prices', version: '0.1.8', date: '2026-09-23' });
    expect(p.source).toMatchObject({
      provider: 'anthropic',
      model: 'claude-haiku-4-5',
      name: 'Claude Haiku 4.5',
    });
    expect(p.unexpressed).toEqual([]);
  });

  it('finds a dated snapshot id under its model', () => {
    expect(propose('anthropic', 'claude-sonnet-4-5-20250929')?.source.model).toBe('claude-sonnet-4-5');
  });

  it('answers null for a model or a vendor it does not know', () => {
    expect(propose('openai', 'mock-gpt')).toBeNull();
    expect(
      proposePricing({
        where: { providerId: 'no-such-vendor' },
        id: 'gpt-4o-mini',
        countsWebSearches: false,
      }),
    ).toBeNull();
    // A generic OpenAI-compatible server is found by its address only.
    expect(propose('openai-compatible', 'llama-3.3-70b-versatile')).toBeNull();
  });

  it("turns a tiered model's prices into one tier per threshold", () => {
    const p = propose('gemini', 'gemini-2.5-pro')!;
    expect(p.pricing).toEqual({
      input_per_million: 1.25,
      output_per_million: 10,
      cache_read_per_million: 0.125,
      tiers: [
        {
          above_input_tokens: 200_000,
          input_per_million: 2.5,
          output_per_million: 15,
          cache_read_per_million: 0.25,
        },
      ],
    });
    expect(p.contextWindow).toBeNull();
    const sonnet = propose('anthropic', 'claude-sonnet-4-5')!.pricing;
    expect(sonnet.tiers).toEqual([
      {
        above_input_tokens: 200_000,
        input_per_million: 6,
        output_per_million: 22.5,
        cache_read_per_million: 0.6,
        cache_write_5m_per_million: 7.5,
        cache_write_1h_per_million: 12,
      },
    ]);
  });

  it('proposes the audio prices, the cached audio one included', () => {
    const p = propose('gemini', 'gemini-2.5-flash')!;
    expect(p.pricing).toEqual({
      input_per_million: 0.3,
      output_per_million: 2.5,
      cache_read_per_million: 0.03,
      input_audio_per_million: 1,
      cache_read_audio_per_million: 0.1,
    });
    expect(p.unexpressed).toEqual([]);
  });

  it('proposes the audio output price, and says which catalog prices the gateway cannot charge', () => {
    expect(propose('openai', 'gpt-audio')!.pricing).toEqual({
      input_per_million: 2.5,
      output_per_million: 10,
      input_audio_per_million: 32,
      output_audio_per_million: 64,
    });
    const realtime = propose('openai', 'gpt-realtime')!;
    expect(realtime.pricing).toMatchObject({
      cache_read_audio_per_million: 0.4,
      output_audio_per_million: 64,
    });
    expect(realtime.unexpressed).toEqual(['input_image_mtok 5', 'cache_image_read_mtok 0.5']);
  });

  it("leaves out a fee whose counter the provider's usage never reports", () => {
    const p = propose('openai', 'gpt-4o-mini')!;
    expect(p.pricing).toEqual({
      input_per_million: 0.15,
      output_per_million: 0.6,
      cache_read_per_million: 0.075,
    });
    expect(p.unexpressed).toEqual(['web_searches_kcount 10', 'storage_searches_kcount 2.5']);
    expect(propose('perplexity', 'sonar')!.pricing.fees_per_thousand).toEqual({ requests: 12 });
  });

  it("reads the clouds' model ids: Bedrock's inference profiles, Vertex's Claude and Gemini", () => {
    const bedrock = propose('bedrock', 'us.anthropic.claude-sonnet-4-5-20250929-v1:0')!;
    expect(bedrock.source.provider).toBe('aws');
    expect(bedrock.pricing).toMatchObject({ input_per_million: 3.3, cache_write_5m_per_million: 4.125 });
    const claude = propose('vertex', 'claude-sonnet-4@20250514')!;
    expect(claude.source).toMatchObject({ provider: 'anthropic', model: 'claude-sonnet-4-0' });
    expect(claude.pricing.fees_per_thousand).toEqual({ web_search_requests: 10 });
    expect(propose('vertex', 'gemini-2.5-flash')!.source.provider).toBe('google');
    expect(propose('azure-openai', 'gpt-4o-mini')!.source.provider).toBe('azure');
  });

  it('finds a generic server by its base URL, and a vendor profile by name', () => {
    const together = propose('openai-compatible', 'meta-llama/Llama-3.3-70B-Instruct-Turbo', {
      baseUrl: 'https://api.together.xyz/v1',
    });
    expect(together?.source.provider).toBe('together');
    expect(
      propose('openai-compatible', 'deepseek-chat', { vendor: 'deepseek' })?.pricing.cache_read_per_million,
    ).toBeGreaterThan(0);
  });

  it('takes the prices in force at a date', () => {
    const before = propose('anthropic', 'claude-opus-4-6', { at: new Date('2026-01-01T00:00:00Z') })!;
    const after = propose('anthropic', 'claude-opus-4-6', { at: new Date('2026-04-01T00:00:00Z') })!;
    expect(before.pricing.tiers).toHaveLength(1);
    expect(after.pricing.tiers).toBeUndefined();
  });
});

describe("Vertex's regional endpoints (issue 31, item 7)", () => {
  /** Claude Sonnet 4.5 at Anthropic's (global) prices: input, output, read, 5m write, 1h write. */
  const sonnetGlobal = {
    input_per_million: 3,
    output_per_million: 15,
    cache_read_per_million: 0.3,
    cache_write_5m_per_million: 3.75,
    cache_write_1h_per_million: 6,
  };

  it('bills Claude Sonnet 4.5 10 % more at a regional location than at global', () => {
    const regional = propose('vertex', 'claude-sonnet-4-5@20250929', { location: 'us-east5' })!;
    expect(regional.pricing).toMatchObject({
      input_per_million: 3.3,
      output_per_million: 16.5,
      cache_read_per_million: 0.33,
      cache_write_5m_per_million: 4.125,
      cache_write_1h_per_million: 6.6,
    });
    expect(regional.pricing.tiers).toEqual([
      {
        above_input_tokens: 200_000,
        input_per_million: 6.6,
        output_per_million: 24.75,
        cache_read_per_million: 0.66,
        cache_write_5m_per_million: 8.25,
        cache_write_1h_per_million: 13.2,
      },
    ]);
    // A fee is per search, not per token: Vertex charges it alike everywhere.
    expect(regional.pricing.fees_per_thousand).toEqual({ web_search_requests: 10 });
    expect(regional.premium).toMatchObject({
      percent: 10,
      url: expect.stringContaining('claude-on-vertex-ai'),
    });
    const global = propose('vertex', 'claude-sonnet-4-5@20250929', { location: 'global' })!;
    expect(global.pricing).toMatchObject(sonnetGlobal);
    expect(global.premium).toBeNull();
  });

  it('leaves the Claude models older than Sonnet 4.5 and the Gemini models at their prices', () => {
    const at = (model: string, location: string) => propose('vertex', model, { location })!.pricing;
    expect(at('claude-sonnet-4@20250514', 'us-east5')).toEqual(at('claude-sonnet-4@20250514', 'global'));
    expect(at('claude-sonnet-4@20250514', 'us-east5').input_per_million).toBe(3);
    expect(at('claude-3-5-haiku@20241022', 'us-east5')).toEqual(at('claude-3-5-haiku@20241022', 'global'));
    expect(at('claude-opus-4-1@20250805', 'us-east5')).toEqual(at('claude-opus-4-1@20250805', 'global'));
    expect(at('claude-opus-4@20250514', 'europe-west1')).toEqual(at('claude-opus-4@20250514', 'global'));
    expect(at('gemini-2.5-flash', 'us-central1')).toEqual(at('gemini-2.5-flash', 'global'));
    expect(at('claude-haiku-4-5@20251001', 'europe-west1').input_per_million).toBe(1.1);
  });
});

describe('comparePricing', () => {
  const catalog = propose('gemini', 'gemini-2.5-pro')!.pricing;

  it('finds nothing between a proposal and itself', () => {
    expect(comparePricing(catalog, catalog)).toEqual([]);
  });

  it('names each price that differs, a missing tier and a missing fee', () => {
    const ours = {
      input_per_million: 1.25,
      output_per_million: 12,
      fees_per_thousand: { web_search_requests: 35 },
    };
    expect(comparePricing(ours, catalog)).toEqual([
      { field: 'cache_read_per_million', configured: null, catalog: 0.125 },
      { field: 'output_per_million', configured: 12, catalog: 10 },
      { field: 'tiers[above 200000].cache_read_per_million', configured: null, catalog: 0.25 },
      { field: 'tiers[above 200000].input_per_million', configured: null, catalog: 2.5 },
      { field: 'tiers[above 200000].output_per_million', configured: null, catalog: 15 },
      { field: 'fees_per_thousand.web_search_requests', configured: 35, catalog: null },
    ]);
  });

  it('compares in nanocredits, so float noise is no difference', () => {
    expect(
      comparePricing(
        { input_per_million: 0.1 + 0.2, output_per_million: 1 },
        { input_per_million: 0.3, output_per_million: 1 },
      ),
    ).toEqual([]);
  });
});
