import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { type Histogram } from '@opentelemetry/sdk-metrics';
import { type Attempt, type RequestLogJob } from '#libs/queue';
import { installTestTelemetry, pointsOf, telemetry, type TestTelemetry } from '#libs/telemetry';
import { RequestMetrics } from './request-metrics.js';

let t: TestTelemetry;
beforeAll(async () => {
  t = await installTestTelemetry();
});
afterAll(async () => {
  await t.uninstall();
});

const attempt = (latencyMs: number, outcome: Attempt['outcome'] = 'ok'): Attempt => ({
  providerId: 'p0',
  status: outcome === 'ok' ? 200 : 503,
  outcome,
  latencyMs,
});

/** The fields request metrics read; the rest of a job does not matter to them. */
const job = (endpoint: string, latencyMs: number, attempts: Attempt[]): RequestLogJob =>
  ({
    endpoint,
    model: 'm',
    providerId: 'p0',
    stream: false,
    status: 200,
    errorCode: null,
    latencyMs,
    ttftMs: null,
    usage: null,
    adjustments: [],
    attempts,
  }) as Partial<RequestLogJob> as RequestLogJob;

const addedLatency = async (endpoint: string): Promise<Histogram | undefined> =>
  pointsOf(await t.collect(), 'gateway.edge.added_latency').find(
    (p) => p.attributes['gateway.endpoint'] === endpoint,
  )?.value as Histogram | undefined;

describe('RequestMetrics: added latency', () => {
  // Made after the install: before it, telemetry() is the no-op one.
  let metrics: RequestMetrics;
  beforeAll(() => {
    metrics = new RequestMetrics(telemetry().metrics, new Map([['p0', 'openai']]));
  });

  it("records the request's duration minus its upstream attempts', in seconds", async () => {
    metrics.requestFinished(job('/v1/a', 120, [attempt(100)]));
    // A failover: both attempts are upstream time; the rest is the gateway's.
    metrics.requestFinished(job('/v1/a', 330, [attempt(200, 'http_error'), attempt(100)]));
    const h = (await addedLatency('/v1/a'))!;
    expect(h.count).toBe(2);
    expect(h.sum).toBeCloseTo(0.05, 6);
  });

  it('records nothing for a request that went nowhere upstream, and never a negative time', async () => {
    metrics.requestFinished(job('/v1/b', 5, []));
    metrics.requestFinished(job('/v1/b', 3, [attempt(0, 'limited')]));
    expect(await addedLatency('/v1/b')).toBeUndefined();
    // Clocks read in different places: an attempt can measure a hair longer than its request.
    metrics.requestFinished(job('/v1/c', 99.5, [attempt(100)]));
    expect((await addedLatency('/v1/c'))!.sum).toBe(0);
  });
});
