import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Catalog } from '#libs/config';
import { parseConfig } from '#libs/gateway-config';
import { ATTR, installTestTelemetry, pointsOf, type TestTelemetry } from '#libs/telemetry';
import { PassiveHealth } from '../samples/passive-health.service.js';
import { BreakerGauge } from './breaker-gauge.js';

let t: TestTelemetry;
beforeAll(async () => {
  t = await installTestTelemetry();
});
afterAll(() => t.uninstall());

const catalog = new Catalog(
  parseConfig({
    router: { breaker: { consecutive_failures: 3, cooldown_ms: 60_000 } },
    providers: [
      { id: 'p0', type: 'openai', base_url: 'http://127.0.0.1:1/v1', models: ['m1', 'm2'] },
      { id: 'p1', type: 'openai', base_url: 'http://127.0.0.1:2/v1', models: ['m1'] },
    ],
    models: [
      { id: 'm1', owned_by: 'x', created: 1, pricing: { input_per_million: 1, output_per_million: 1 } },
      { id: 'm2', owned_by: 'x', created: 1, pricing: { input_per_million: 1, output_per_million: 1 } },
    ],
    groups: { default: ['m1', 'm2'] },
  }),
  {},
);

describe('BreakerGauge', () => {
  it("reports the health book's breaker per configured provider and model: 0 closed, 2 open", async () => {
    const health = new PassiveHealth(catalog);
    const gauge = new BreakerGauge(catalog, health);
    gauge.onApplicationBootstrap();
    const now = Date.now();
    health.record(
      [0, 1, 2].map((i) => ({
        providerId: 'p0',
        model: 'm1',
        at: now + i,
        outcome: 'http_error' as const,
        status: 500,
        latencyMs: 10,
        ttftMs: null,
        retryAfterMs: null,
      })),
      now + 2,
    );
    const points = pointsOf(await t.collect(), 'gateway.router.breaker.state');
    gauge.onApplicationShutdown();
    const value = (p: string, m: string) =>
      points.find((x) => x.attributes[ATTR.providerId] === p && x.attributes[ATTR.requestModel] === m)?.value;
    expect(value('p0', 'm1')).toBe(2);
    expect(value('p0', 'm2')).toBe(0);
    expect(value('p1', 'm1')).toBe(0);
    expect(points).toHaveLength(3);
  });
});
