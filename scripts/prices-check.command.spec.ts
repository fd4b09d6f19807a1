import { describe, expect, it } from '@jest/globals';
import { loadConfigFile, parseConfig } from '#libs/gateway-config';
import { pricesCheckCommand } from './prices-check.command.js';

const doc = {
  providers: [
    {
      id: 'google',
      type: 'gemini',
      base_url: 'https://generativelanguage.googleapis.com',
      models: ['gemini-2.5-flash', { id: 'pro', upstream: 'gemini-2.5-pro' }],
    },
    { id: 'local', type: 'openai', base_url: 'http://127.0.0.1:4010/v1', models: ['mock-gpt'] },
  ],
  models: [
    {
      id: 'gemini-2.5-flash',
      owned_by: 'google',
      created: 1,
      pricing: {
        input_per_million: 0.3,
        output_per_million: 2.5,
        cache_read_per_million: 0.03,
        input_audio_per_million: 1,
        cache_read_audio_per_million: 0.1,
      },
    },
    // Gemini 2.5 Pro without its long-context tier, and output at the wrong price.
    {
      id: 'pro',
      owned_by: 'google',
      created: 1,
      pricing: { input_per_million: 1.25, output_per_million: 12 },
    },
    { id: 'mock-gpt', owned_by: 'me', created: 1, pricing: { input_per_million: 1, output_per_million: 2 } },
  ],
  groups: { default: ['gemini-2.5-flash', 'pro', 'mock-gpt'] },
};
const config = parseConfig(doc);

function run(argv: string[], cfg = config): { code: number; out: string[]; err: string[] } {
  const out: string[] = [];
  const err: string[] = [];
  const code = pricesCheckCommand(argv, { config: cfg, out: (l) => out.push(l), err: (l) => err.push(l) });
  return { code, out, err };
}

describe('prices:check', () => {
  it('prints the models whose prices differ, price by price, and exits 0', () => {
    const { code, out } = run([]);
    expect(code).toBe(0);
    expect(out).toEqual([
      'Catalog: @pydantic/genai-prices 0.1.8 (2026-09-23)',
      'pro (provider google, upstream gemini-2.5-pro) differs from google/gemini-2.5-pro:',
      '  cache_read_per_million: configured not set, catalog 0.125',
      '  output_per_million: configured 12, catalog 10',
      '  tiers[above 200000].cache_read_per_million: configured not set, catalog 0.25',
      '  tiers[above 200000].input_per_million: configured not set, catalog 2.5',
      '  tiers[above 200000].output_per_million: configured not set, catalog 15',
      'Not in the catalog: mock-gpt (local)',
      '3 checked: 1 differ, 1 match, 1 not in the catalog',
    ]);
  });

  it('exits 1 on a difference only with --strict', () => {
    expect(run(['--strict']).code).toBe(1);
    const matching = parseConfig({
      ...doc,
      providers: [{ ...doc.providers[0]!, models: ['gemini-2.5-flash'] }],
      models: [doc.models[0]!],
      groups: { default: ['gemini-2.5-flash'] },
    });
    expect(run(['--strict'], matching).code).toBe(0);
  });

  it('refuses an unknown argument with its usage', () => {
    const { code, err } = run(['--fix']);
    expect(code).toBe(2);
    expect(err.join('\n')).toMatch(/Unknown option '--fix'[\s\S]*usage: npm run prices:check/);
  });

  it('finds the shipped Gemini models at the catalog prices', () => {
    const shipped = loadConfigFile('config/gateway.yaml');
    const gemini = ['gemini-2.5-flash', 'gemini-2.5-pro'];
    const models = shipped.models.filter((m) => gemini.includes(m.id));
    expect(models.map((m) => m.id)).toEqual(gemini);
    // Served by the gemini provider, commented out as shipped: checked as that provider would be.
    const served = parseConfig({
      ...doc,
      providers: [{ ...doc.providers[0]!, models: gemini }],
      models,
      groups: { default: gemini },
    });
    expect(run(['--strict'], served).out.at(-1)).toBe('2 checked: 0 differ, 2 match, 0 not in the catalog');
  });

  it('reports the shipped character-billed Vertex models the catalog does not know, without failing', () => {
    const ids = ['text-embedding-005', 'text-multilingual-embedding-002'];
    const models = loadConfigFile('config/gateway.yaml').models.filter((m) => ids.includes(m.id));
    expect(models.map((m) => m.pricing.fees_per_thousand)).toEqual([
      { input_characters: 0.000025 },
      { input_characters: 0.000025 },
    ]);
    const served = parseConfig({
      providers: [{ id: 'vx', type: 'vertex', project: 'my-project', location: 'us-central1', models: ids }],
      models,
      groups: { default: ids },
    });
    const { code, out } = run(['--strict'], served);
    expect(code).toBe(0);
    expect(out.slice(1)).toEqual([
      'Not in the catalog: text-embedding-005 (vx), text-multilingual-embedding-002 (vx)',
      '2 checked: 0 differ, 0 match, 2 not in the catalog',
    ]);
  });

  it("checks a Vertex Claude model at its location's prices (issue 31, item 7)", () => {
    const sonnet = (input: number, output: number, read: number, w5m: number, w1h: number) => ({
      input_per_million: input,
      output_per_million: output,
      cache_read_per_million: read,
      cache_write_5m_per_million: w5m,
      cache_write_1h_per_million: w1h,
    });
    const fees = { web_search_requests: 10 };
    const tier = { above_input_tokens: 200_000 };
    const vertex = (location: string, pricing: object) =>
      parseConfig({
        providers: [
          {
            id: 'vx',
            type: 'vertex',
            project: 'my-project',
            location,
            models: [{ id: 's', upstream: 'claude-sonnet-4-5@20250929' }],
          },
        ],
        models: [{ id: 's', owned_by: 'anthropic', created: 1, pricing }],
        groups: { default: ['s'] },
      });
    const regional = {
      ...sonnet(3.3, 16.5, 0.33, 4.125, 6.6),
      tiers: [{ ...tier, ...sonnet(6.6, 24.75, 0.66, 8.25, 13.2) }],
      fees_per_thousand: fees,
    };
    const global = {
      ...sonnet(3, 15, 0.3, 3.75, 6),
      tiers: [{ ...tier, ...sonnet(6, 22.5, 0.6, 7.5, 12) }],
      fees_per_thousand: fees,
    };
    expect(run(['--strict'], vertex('us-east5', regional)).out.at(-1)).toBe(
      '1 checked: 0 differ, 1 match, 0 not in the catalog',
    );
    expect(run(['--strict'], vertex('global', global)).code).toBe(0);
    const flagged = run([], vertex('us-east5', global)).out;
    expect(flagged[1]).toBe(
      's (provider vx, upstream claude-sonnet-4-5@20250929) differs from anthropic/claude-sonnet-4-5 (+10 %: Vertex AI location us-east5: Claude Sonnet 4.5 and later cost 10 % more at a regional endpoint than at global):',
    );
    expect(flagged).toContain('  input_per_million: configured 3, catalog 3.3');
    expect(flagged.at(-1)).toBe('1 checked: 1 differ, 0 match, 0 not in the catalog');
  });

  it('names the models no provider serves, unchecked', () => {
    const unserved = parseConfig({ ...doc, models: [...doc.models, { ...doc.models[2]!, id: 'spare' }] });
    expect(run([], unserved).out).toContain('Served by no provider, not checked: spare');
  });
});
