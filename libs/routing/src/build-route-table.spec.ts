import { describe, expect, it } from '@jest/globals';
import { Catalog, type GatewayConfigInput } from '#libs/config';
import { parseConfig } from '#libs/gateway-config';
import { buildRouteTable, NO_PROBE_YET } from './build-route-table.js';
import { type CandidateHealth } from './health-book.js';
import { type StatsSnapshot } from './provider-stats.js';
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
      [
        'p0-disabled',
        'disabled',
        'env MISSING_KEY is not set, or not declared for provider keys (GATEWAY_PROVIDER_KEY_VARS)',
      ],
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

  describe('with passive health', () => {
    const stats: StatsSnapshot = {
      latencyEwmaMs: 420,
      latencyP50Ms: 400,
      latencyP95Ms: 900,
      ttftEwmaMs: 120,
      ttftP50Ms: 100,
      ttftP95Ms: 300,
      windowSamples: 10,
      windowFailures: 0,
      errorRate: 0,
      consecutiveFailures: 0,
      lastFailure: null,
      rateLimitedUntil: null,
      retryAfterMs: null,
    };
    const nowMs = NOW.getTime();
    const catalog = catalogOf([
      provider('open'),
      provider('limited'),
      provider('half'),
      provider('fast', { priority: 1 }),
      provider('probe-down'),
      provider('fresh', { priority: 2 }),
    ]);
    const passive = new Map<string, CandidateHealth>([
      [
        'open',
        {
          stats: { ...stats, errorRate: 1, consecutiveFailures: 5 },
          breaker: {
            phase: 'open',
            since: nowMs,
            until: nowMs + 11_200,
            cause: '5 consecutive failures (HTTP 500)',
          },
        },
      ],
      [
        'limited',
        {
          stats: { ...stats, rateLimitedUntil: nowMs + 30_000, retryAfterMs: 30_000 },
          breaker: { phase: 'closed' },
        },
      ],
      ['half', { stats, breaker: { phase: 'half_open', successes: 1, cause: 'trial failed (timeout)' } }],
      ['fast', { stats, breaker: { phase: 'closed' } }],
      ['probe-down', { stats, breaker: { phase: 'closed' } }],
    ]);
    const table = buildRouteTable(
      catalog,
      new Map([
        ['fast', { ...health('up', 'probe: HTTP 200'), latencyMs: 7 }],
        ['probe-down', health('down', 'probe: ECONNREFUSED')],
        ['fresh', { ...health('up', 'probe: HTTP 200'), latencyMs: 7 }],
      ]),
      1,
      NOW,
      (providerId, model) => (model === 'm' ? passive.get(providerId) : undefined),
    );

    it('ranks up, half_open, down, then priority, and says why', () => {
      expect(table.models.m?.map((c) => [c.providerId, c.state, c.reason])).toEqual([
        ['fast', 'up', 'up: p50 400ms, errors 0%; probe: HTTP 200'],
        ['fresh', 'up', 'probe: HTTP 200'],
        ['half', 'half_open', 'breaker half-open: 1 trial success(es) so far, after trial failed (timeout)'],
        ['open', 'down', 'breaker open: 5 consecutive failures (HTTP 500), half-open in 12s'],
        ['limited', 'down', 'rate limited until 03:04:35 (retry-after 30s)'],
        ['probe-down', 'down', 'probe: ECONNREFUSED'],
      ]);
    });

    it('fills latency, TTFT and error rate from the samples; probe latencies only while nothing is measured', () => {
      const byId = new Map(table.models.m?.map((c) => [c.providerId, c]));
      expect(byId.get('fast')).toMatchObject({ latencyMs: 420, ttftMs: 120, errorRate: 0 });
      expect(byId.get('open')).toMatchObject({ errorRate: 1 });
      // A model listing is no completion: next to measured candidates, a probe latency is "unknown".
      expect(byId.get('fresh')).toMatchObject({ latencyMs: null, ttftMs: null, errorRate: 0 });
      const probesOnly = buildRouteTable(
        catalog,
        new Map([['fresh', { ...health('up', 'probe: HTTP 200'), latencyMs: 7 }]]),
        1,
        NOW,
        () => undefined,
      );
      expect(probesOnly.models.m?.find((c) => c.providerId === 'fresh')).toMatchObject({ latencyMs: 7 });
    });
  });
});
