import { describe, expect, it } from '@jest/globals';
import { Catalog } from '#libs/config';
import { parseConfig } from '#libs/gateway-config';
import { type ConsoleSettings } from '../console-settings.js';
import { ApiError } from '../http/api-error.js';
import { catalogPricesFor } from './catalog-prices.js';
import { ProvidersController } from './providers.controller.js';

const catalog = new Catalog(
  parseConfig({
    providers: [
      {
        id: 'anthropic',
        type: 'anthropic',
        base_url: 'https://api.anthropic.com',
        models: [{ id: 'sonnet', upstream: 'claude-sonnet-4-5' }, 'mock-claude'],
      },
    ],
    models: [
      {
        id: 'sonnet',
        owned_by: 'anthropic',
        created: 1,
        pricing: { input_per_million: 3, output_per_million: 15, cache_read_per_million: 0.3 },
      },
      {
        id: 'mock-claude',
        owned_by: 'me',
        created: 1,
        pricing: { input_per_million: 1, output_per_million: 2 },
      },
    ],
    groups: { default: ['sonnet', 'mock-claude'] },
  }),
  {},
);
const provider = catalog.providers.get('anthropic')!;

describe('catalog prices of a provider', () => {
  it("proposes a served model's prices by its upstream id, and says how the configured ones differ", () => {
    const view = catalogPricesFor(provider, 'sonnet', catalog.models)!;
    expect(view.upstream).toBe('claude-sonnet-4-5');
    expect(view.proposal.source.model).toBe('claude-sonnet-4-5');
    expect(view.configured?.modelId).toBe('sonnet');
    expect(view.configured?.differences.map((d) => d.field)).toEqual([
      'cache_write_1h_per_million',
      'cache_write_5m_per_million',
      'tiers[above 200000].cache_read_per_million',
      'tiers[above 200000].cache_write_1h_per_million',
      'tiers[above 200000].cache_write_5m_per_million',
      'tiers[above 200000].input_per_million',
      'tiers[above 200000].output_per_million',
      'fees_per_thousand.web_search_requests',
    ]);
  });

  it('proposes a model the provider does not serve yet, with nothing configured', () => {
    const view = catalogPricesFor(provider, 'claude-haiku-4-5', catalog.models)!;
    expect(view).toMatchObject({ upstream: 'claude-haiku-4-5', configured: null });
    expect(view.proposal.pricing.input_per_million).toBe(1);
  });

  it("proposes a Vertex provider's Claude at its location's prices (issue 31, item 7)", () => {
    const vertexAt = (location: string) =>
      new Catalog(
        parseConfig({
          providers: [{ id: 'vx', type: 'vertex', project: 'my-project', location, models: ['mock-claude'] }],
          models: [
            {
              id: 'mock-claude',
              owned_by: 'me',
              created: 1,
              pricing: { input_per_million: 1, output_per_million: 2 },
            },
          ],
          groups: { default: ['mock-claude'] },
        }),
        {},
      ).providers.get('vx')!;
    const at = (location: string) =>
      catalogPricesFor(vertexAt(location), 'claude-sonnet-4-5@20250929', new Map())!.proposal;
    expect(at('us-east5').pricing).toMatchObject({ input_per_million: 3.3, output_per_million: 16.5 });
    expect(at('us-east5').premium?.percent).toBe(10);
    expect(at('global').pricing).toMatchObject({ input_per_million: 3, output_per_million: 15 });
  });

  it('answers 404 for a model the catalog does not know and for an unknown provider', () => {
    const controller = new ProvidersController(catalog, {} as ConsoleSettings);
    const statusOf = (id: string, model: string): number => {
      try {
        controller.catalogPrices(id, { model });
      } catch (err) {
        return (err as ApiError).status;
      }
      return 200;
    };
    expect(statusOf('anthropic', 'sonnet')).toBe(200);
    expect(statusOf('anthropic', 'mock-claude')).toBe(404);
    expect(statusOf('nope', 'sonnet')).toBe(404);
    expect(statusOf('anthropic', '')).toBe(400);
  });
});
