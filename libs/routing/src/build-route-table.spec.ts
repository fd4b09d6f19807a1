import { describe, expect, it } from '@jest/globals';
import { Catalog, parseConfig, type GatewayConfigInput } from '#libs/config';
import { buildRouteTable, NO_PROBE_YET } from './build-route-table.js';
import { type ProviderHealth } from './provider-health.js';

type ProviderInput = GatewayConfigInput['providers'][number];

function catalogOf(providers: ProviderInput[], secrets: Record<string, string> = {}): Catalog {
  const ids = [...new Set(providers.flatMap((p) => p.models.map((m) => (typeof m === 'string' ? m : m.id))))];
  const config = parseConfig({
    providers,
    models: [...ids, 'orphan'].map((id) => ({
      id,
      owned_by: 'test',
      created: 0,
      pricing: { input_per_million: 1, output_per_million: 1 },
    })),
    groups: {},
  });
  return new Catalog(config, secrets);
}

function provider(id: string, extra: Partial<ProviderInput> = {}): ProviderInput {
  return { id, type: 'openai-compatible', base_url: `http://${id}.test/v1`, models: ['m'], ...extra };
}

function health(state: 'up' | 'down', reason: string): ProviderHealth {
  return { state, reason, consecutiveFailures: state === 'down' ? 2 : 0, checkedAt: 0, latencyMs: null };
}

const NOW = new Date('2026-01-02T03:04:05.000Z');

describe('buildRouteTable', () => {
  it('ranks up before down before disabled, then priority ascending, then weight descending', () => {
    const catalog = catalogOf(
      [
        provider('p1-w1', { priority: 1, weight: 1 }),
        provider('p0-w1', { priority: 0, weight: 1 }),
        provider('p1-w3', { priority: 1, weight: 3 }),
        provider('p0-down', { priority: 0, weight: 5 }),
        provider('p0-disabled', { priority: 0, weight: 9, api_key_env: 'MISSING_KEY' }),
      ],
      {},
    );
    const table = buildRouteTable(
      catalog,
      new Map([
        ['p0-down', health('down', 'probe: HTTP 503')],
        ['p0-disabled', health('up', 'probe ok')],
      ]),
      7,
      NOW,
    );
    expect(table.version).toBe(7);
    expect(table.generatedAt).toBe('2026-01-02T03:04:05.000Z');
    expect(table.models.m?.map((c) => [c.providerId, c.state, c.reason])).toEqual([
      ['p0-w1', 'up', NO_PROBE_YET],
      ['p1-w3', 'up', NO_PROBE_YET],
      ['p1-w1', 'up', NO_PROBE_YET],
      ['p0-down', 'down', 'probe: HTTP 503'],
      ['p0-disabled', 'disabled', 'env MISSING_KEY is not set'],
    ]);
  });

  it('keeps config order between equal candidates and carries the upstream model name', () => {
    const catalog = catalogOf([
      provider('a', { models: [{ id: 'm', upstream: 'vendor-m' }] }),
      provider('b', { models: ['m', 'm'] }),
    ]);
    const table = buildRouteTable(catalog, new Map(), 1, NOW);
    expect(table.models.m).toEqual([
      {
        providerId: 'a',
        upstreamModel: 'vendor-m',
        priority: 0,
        weight: 1,
        state: 'up',
        reason: NO_PROBE_YET,
      },
      { providerId: 'b', upstreamModel: 'm', priority: 0, weight: 1, state: 'up', reason: NO_PROBE_YET },
    ]);
  });

  it('lists every configured model, with no candidates when nobody serves it', () => {
    const table = buildRouteTable(catalogOf([provider('a')]), new Map(), 1, NOW);
    expect(Object.keys(table.models)).toEqual(['m', 'orphan']);
    expect(table.models.orphan).toEqual([]);
  });

  it('uses the health state and reason of probed providers', () => {
    const catalog = catalogOf([provider('a'), provider('b', { priority: 0, weight: 10 })]);
    const table = buildRouteTable(catalog, new Map([['b', health('down', 'probe: ECONNREFUSED')]]), 2, NOW);
    expect(table.models.m?.map((c) => `${c.providerId}:${c.state}:${c.reason}`)).toEqual([
      `a:up:${NO_PROBE_YET}`,
      'b:down:probe: ECONNREFUSED',
    ]);
  });

  it('is plain data that survives a JSON round trip', () => {
    const table = buildRouteTable(catalogOf([provider('a')]), new Map(), 3, NOW);
    expect(JSON.parse(JSON.stringify(table))).toEqual(table);
  });
});
