import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { installTestTelemetry, type TestTelemetry } from '#libs/telemetry';
import { eventually, type Gateway, startGateway } from '../support/gateway.js';
import { KUBE_STATE_METRICS, ruleMetricNames } from './alert-rules.js';

/**
 * The alerting rules against real `/metrics`: the four apps booted from source (real Redis,
 * Postgres, the mock provider), one model request served and written, then every metric name the
 * rules read must be in what the apps serve. A renamed metric fails here instead of silencing an
 * alert. Names that appear only in a setting the test has not are listed with why.
 */
const ONLY_WITH: Readonly<Record<string, string>> = {
  gateway_credentials_refresh_failing: 'a provider with a cloud credential (Entra ID, Google, AWS)',
};

let t: TestTelemetry;
let gw: Gateway;
beforeAll(async () => {
  t = await installTestTelemetry();
  gw = await startGateway('e2e-alert-metrics');
}, 30_000);
afterAll(async () => {
  await gw?.close();
  await t?.uninstall();
});

/** Series lines of one app's /metrics: name and labels text, value. */
async function scrape(url: string): Promise<Array<{ name: string; labels: string; value: number }>> {
  const res = await fetch(`${url}/metrics`);
  expect(res.status).toBe(200);
  return (await res.text())
    .split('\n')
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map((line) => {
      const [, name = '', labels = '', value = ''] =
        /^([a-zA-Z_:][\w:]*)(\{[^}]*\})?\s+(\S+)/.exec(line) ?? [];
      return { name, labels, value: Number(value) };
    });
}

describe('alerting rules against the apps’ /metrics', () => {
  it('read only names the apps serve, and every app reaches Redis and Postgres', async () => {
    const key = await gw.createKey();
    const res = await fetch(`${gw.edgeUrl}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key.raw}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'mock-gpt', messages: [{ role: 'user', content: 'alerts' }] }),
    });
    expect(res.status).toBe(200);
    await gw.logRow(res.headers.get('x-request-id')!);
    const urls = [gw.edgeUrl, gw.routerUrl, gw.workerUrl, gw.consoleUrl];
    // The worker's batch metrics are recorded once its transaction committed.
    const series = await eventually(async () => {
      const all = (await Promise.all(urls.map(scrape))).flat();
      return all.some((s) => s.name === 'gateway_worker_batch_size_sum') ? all : undefined;
    });
    const served = new Set(series.map((s) => s.name));

    const missing = ruleMetricNames().filter(
      ({ name }) => !served.has(name) && !KUBE_STATE_METRICS.has(name) && ONLY_WITH[name] === undefined,
    );
    expect(missing).toEqual([]);

    // The four apps share this process's registry: each scrape shows the same two series, each
    // the highest of the apps' checks (1 only if one answered; all four share the servers).
    const up = series.filter((s) => s.name === 'gateway_dependency_up');
    const dependencies = new Set(up.map((s) => /gateway_dependency="(\w+)"/.exec(s.labels)?.[1]));
    expect([...dependencies].sort()).toEqual(['postgres', 'redis']);
    expect(up.every((s) => s.value === 1)).toBe(true);
  }, 30_000);
});
