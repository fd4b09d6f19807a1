import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { CredentialGauge, DependencyGauges } from './health-gauges.js';
import { telemetry } from './sdk.js';
import { installTestTelemetry, pointsOf, type TestTelemetry } from './testing.js';

let t: TestTelemetry;
beforeAll(async () => {
  t = await installTestTelemetry();
});
afterAll(async () => {
  await t.uninstall();
});

const valueOf = async (name: string, attribute: string, value: string): Promise<unknown> =>
  pointsOf(await t.collect(), name).find((p) => p.attributes[attribute] === value)?.value;

describe('DependencyGauges', () => {
  it('reads 1 for a dependency that answers, 0 for one that fails or does not answer in time', async () => {
    let calls = 0;
    const gauges = new DependencyGauges(
      telemetry().metrics,
      {
        redis: async () => {
          calls++;
          return 'PONG';
        },
        postgres: () => Promise.reject(new Error('ECONNREFUSED')),
        hung: () => new Promise(() => undefined),
      },
      50,
    );
    expect(calls).toBe(0); // nothing runs until a collection
    expect(await valueOf('gateway.dependency.up', 'gateway.dependency', 'redis')).toBe(1);
    expect(await valueOf('gateway.dependency.up', 'gateway.dependency', 'postgres')).toBe(0);
    expect(await valueOf('gateway.dependency.up', 'gateway.dependency', 'hung')).toBe(0);
    expect(calls).toBe(3);
    gauges.onApplicationShutdown();
    await t.collect();
    expect(calls).toBe(3); // stopped: no more checks
  });
});

describe('CredentialGauge', () => {
  it('reads 1 per provider whose last refresh failed, 0 once it worked again', async () => {
    let failure: string | null = 'AADSTS700016: application not found';
    const gauge = new CredentialGauge(telemetry().metrics, {
      failures: () => [
        ['azure', failure],
        ['vertex', null],
      ],
    });
    expect(await valueOf('gateway.credentials.refresh_failing', 'gateway.provider.id', 'azure')).toBe(1);
    expect(await valueOf('gateway.credentials.refresh_failing', 'gateway.provider.id', 'vertex')).toBe(0);
    failure = null;
    expect(await valueOf('gateway.credentials.refresh_failing', 'gateway.provider.id', 'azure')).toBe(0);
    gauge.onApplicationShutdown();
  });
});
