import { describe, expect, it } from '@jest/globals';
import { Catalog, type ProviderRuntime } from '#libs/config';
import { parseConfig } from '#libs/gateway-config';
import { type ProbeOutcome, type RouteSample, type RouteTable } from '#libs/routing';
import { HealthTracker } from './health-tracker.service.js';
import { type ProbeClient } from './probe.client.js';

const catalog = new Catalog(
  parseConfig({
    router: { down_after_failures: 2 },
    providers: ['a', 'b'].map((id) => ({
      id,
      type: 'openai',
      base_url: 'https://api.example.com/v1',
      models: ['m', 'n'],
    })),
    models: ['m', 'n'].map((id) => ({
      id,
      owned_by: 't',
      created: 0,
      pricing: { input_per_million: 0, output_per_million: 0 },
    })),
    groups: {},
  }),
  {},
);

const OK: ProbeOutcome = { ok: true, detail: 'probe: HTTP 200', latencyMs: 3 };

/** Probes answered when the test says so, one deferred outcome per provider per cycle. */
class HeldProbes {
  private readonly pending: Array<(o: ProbeOutcome) => void> = [];
  /** Each provider its own probe here (sharing is shared-probes.spec.ts's and the router's tests'). */
  probeKey(provider: ProviderRuntime): string {
    return provider.id;
  }
  probe(_provider: ProviderRuntime): Promise<ProbeOutcome> {
    return new Promise((resolve) => this.pending.push(resolve));
  }
  answerAll(outcome: ProbeOutcome): void {
    for (const resolve of this.pending.splice(0)) resolve(outcome);
  }
}

function tracker(): { health: HealthTracker; probes: HeldProbes } {
  const probes = new HeldProbes();
  return { health: new HealthTracker(catalog, probes as unknown as ProbeClient), probes };
}

const refusal = (providerId: string, extra: Partial<RouteSample> = {}): RouteSample => ({
  providerId,
  model: 'm',
  at: 0,
  outcome: 'http_error',
  status: 403,
  latencyMs: 9,
  ttftMs: null,
  retryAfterMs: null,
  refusal: 'AccessDeniedException: User: arn:aws:iam::123456789012:user/g is not authorized',
  ...extra,
});

async function cycle(health: HealthTracker, probes: HeldProbes, outcome: ProbeOutcome): Promise<void> {
  const running = health.probeAll();
  probes.answerAll(outcome);
  await running;
}

describe('HealthTracker: credentials refused on live requests', () => {
  it("takes the provider down with the request's status and words; other samples change nothing", async () => {
    const { health, probes } = tracker();
    await cycle(health, probes, OK);
    const plain = { ...refusal('b'), outcome: 'ok' as const, status: 200, refusal: undefined };
    expect(health.refusals([plain, refusal('a'), refusal('ghost')], Date.now())).toBe(true);
    expect(health.current().get('a')).toMatchObject({
      state: 'down',
      reason:
        'request: HTTP 403 AccessDeniedException: User: arn:aws:iam::123456789012:user/g is not authorized',
    });
    expect(health.current().get('b')?.state).toBe('up');
    expect(health.current().has('ghost')).toBe(false);
    // The same refusal again: nothing new to publish.
    expect(health.refusals([refusal('a')], Date.now())).toBe(false);
  });

  it('keeps it down against a probe sent before the refusal, and brings it up on the next that passes', async () => {
    const { health, probes } = tracker();
    await cycle(health, probes, OK);
    const stale = health.probeAll();
    // The refusal comes in while that probe is out (a moment later than it was sent).
    const refusedAt = Date.now() + 1;
    health.refusals([refusal('a')], refusedAt);
    probes.answerAll(OK);
    await stale;
    expect(health.current().get('a')?.state).toBe('down');
    expect(health.current().get('b')?.state).toBe('up');
    // The next probe must be sent after the refusal (the tracker's clock is Date.now, in whole ms):
    // a probe sent in the same millisecond would rightly count as one sent before it.
    while (Date.now() <= refusedAt) await new Promise((r) => setTimeout(r, 1));
    await cycle(health, probes, OK);
    expect(health.current().get('a')).toMatchObject({ state: 'up', reason: 'probe: HTTP 200' });
  });

  it('escapes and bounds words from the stream, and says only the status when there are none', () => {
    const { health } = tracker();
    health.refusals(
      [refusal('a', { refusal: `x\u0000${'y'.repeat(400)}` }), refusal('b', { status: 401, refusal: '' })],
      1,
    );
    const a = health.current().get('a')!.reason;
    expect(a.startsWith('request: HTTP 403 x\\u0000yyy')).toBe(true);
    expect(a.length).toBe('request: HTTP 403 '.length + 200);
    expect(health.current().get('b')!.reason).toBe('request: HTTP 401');
  });

  it("starts a new leader from its predecessor's refusal verdicts as from its probe verdicts", () => {
    const { health } = tracker();
    const candidate = (providerId: string, reason: string) => ({
      providerId,
      upstreamModel: 'm',
      priority: 0,
      weight: 1,
      state: 'down' as const,
      reason,
    });
    const table: RouteTable = {
      version: 7,
      generatedAt: new Date(0).toISOString(),
      models: {
        m: [
          candidate('a', 'request: HTTP 403 InvalidSignatureException: The request signature'),
          candidate('b', 'breaker open: 5 consecutive failures (HTTP 500), half-open in 3s'),
        ],
      },
    };
    health.reset(table);
    expect(health.current().get('a')).toMatchObject({ state: 'down', reason: table.models.m![0]!.reason });
    expect(health.current().has('b')).toBe(false);
  });
});
