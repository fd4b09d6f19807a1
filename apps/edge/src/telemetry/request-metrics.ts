import { type Attributes } from '@opentelemetry/api';
import { type RequestLogJob } from '#libs/queue';
import { type SampleOutcome } from '#libs/routing';
import {
  ATTR,
  type BoundHistogram,
  type GatewayMetrics,
  genAiOperation,
  type HistogramName,
} from '#libs/telemetry';

/**
 * Per (endpoint, model, provider): the attributes, built once, and each histogram's series bound
 * on first use, so recording is a bucket increment with no attribute hashing.
 */
class Series {
  private readonly bound = new Map<string, BoundHistogram>();
  /** Requests of this series routed by their agent session, read at collection (`stickyRequests`). */
  sticky = 0;

  constructor(
    readonly base: Attributes,
    private readonly metrics: GatewayMetrics,
  ) {}

  /** `name`'s series for `base` plus `extra` (the same `extra` for one `variant`). */
  get(name: HistogramName, variant: string, extra: Attributes | null): BoundHistogram {
    const key = `${name} ${variant}`;
    let b = this.bound.get(key);
    if (!b) {
      b = this.metrics.histogram(name).bind(extra ? { ...this.base, ...extra } : this.base);
      this.bound.set(key, b);
    }
    return b;
  }
}

const OK_STATUS: Attributes = { [ATTR.httpStatus]: 200 };
const INPUT: Attributes = { [ATTR.tokenType]: 'input' };
const OUTPUT: Attributes = { [ATTR.tokenType]: 'output' };

const MAX_SERIES = 10_000;

/** `dropped tools[8] web_search` -> `dropped tools[]`: the verb and field, bounded by the code. */
export const adjustmentKind = (item: string): string =>
  item
    .split(' ', 2)
    .join(' ')
    .replace(/\[\d+\]/g, '[]');

/**
 * The edge's request metrics: GenAI duration, TTFT and token histograms, the gateway's added
 * latency, upstream errors, failovers.
 */
export class RequestMetrics {
  private readonly series = new Map<string, Series>();

  constructor(
    private readonly metrics: GatewayMetrics,
    private readonly providerNames: ReadonlyMap<string, string>,
  ) {}

  /** One upstream attempt's duration, by outcome. */
  attemptEnded(
    endpoint: string,
    upstreamModel: string | null,
    providerId: string,
    how: SampleOutcome | 'aborted',
    durationMs: number,
  ): void {
    const s = this.seriesOf(endpoint, upstreamModel ?? '', providerId);
    const extra = how === 'ok' ? null : { [ATTR.errorType]: how };
    s.get('clientOperationDuration', how, extra).record(durationMs / 1000);
  }

  /**
   * A finished request: its duration, TTFT and tokens, its attempts' errors and failovers, and
   * whether its agent session chose its provider (`sessionRouted`).
   */
  requestFinished(job: RequestLogJob, sessionRouted = false): void {
    const s = this.seriesOf(job.endpoint, job.model ?? '', job.providerId);
    if (sessionRouted) s.sticky++;
    const duration =
      job.status === 200 && job.errorCode === null
        ? s.get('serverRequestDuration', 'ok', OK_STATUS)
        : s.get('serverRequestDuration', `${job.status} ${job.errorCode ?? ''}`, {
            [ATTR.httpStatus]: job.status,
            ...(job.errorCode ? { [ATTR.errorType]: job.errorCode } : {}),
          });
    duration.record(job.latencyMs / 1000);
    if (job.stream && job.ttftMs !== null)
      s.get('serverTimeToFirstToken', '', null).record(job.ttftMs / 1000);
    if (job.usage) {
      s.get('clientTokenUsage', 'input', INPUT).record(job.usage.inputTokens);
      s.get('clientTokenUsage', 'output', OUTPUT).record(job.usage.outputTokens);
    }
    let tries = 0;
    let upstreamMs = 0;
    for (const a of job.attempts) {
      upstreamMs += a.latencyMs;
      if (a.outcome === 'limited') continue;
      tries++;
      if (a.outcome === 'ok') continue;
      this.metrics.counter('upstreamErrors').add(1, {
        // The attempt's own model: before a fallback answered, the one that failed.
        [ATTR.requestModel]: a.model ?? job.model ?? '',
        [ATTR.providerId]: a.providerId,
        [ATTR.errorType]: a.outcome,
        [ATTR.httpStatus]: a.status,
      });
    }
    // The gateway's own share of a request that went upstream (auth, quota, routing, translation,
    // waits between attempts): the added-latency alert's histogram.
    if (tries > 0) s.get('addedLatency', '', null).record(Math.max(0, job.latencyMs - upstreamMs) / 1000);
    if (tries > 1)
      this.metrics
        .counter('failovers')
        .add(tries - 1, { [ATTR.requestModel]: job.model ?? '', [ATTR.endpoint]: job.endpoint });
    for (const item of job.adjustments) {
      this.metrics.counter('translationAdjustments').add(1, {
        [ATTR.endpoint]: job.endpoint,
        [ATTR.providerId]: job.providerId ?? '',
        [ATTR.adjustment]: adjustmentKind(item),
      });
    }
  }

  /** The session-routed requests per series, for the observed `stickyRequests` counter. */
  observeSticky(observe: (value: number, attributes: Attributes) => void): void {
    for (const s of this.series.values()) if (s.sticky > 0) observe(s.sticky, s.base);
  }

  private seriesOf(endpoint: string, model: string, providerId: string | null): Series {
    const key = `${endpoint}\u0000${model}\u0000${providerId ?? ''}`;
    let s = this.series.get(key);
    if (!s) {
      // Models and providers come from the config, so this stays small; the bound is a backstop.
      if (this.series.size >= MAX_SERIES) this.series.clear();
      const base: Attributes = {
        [ATTR.operation]: genAiOperation(endpoint),
        [ATTR.requestModel]: model,
        [ATTR.endpoint]: endpoint,
        ...(providerId
          ? {
              [ATTR.providerId]: providerId,
              [ATTR.provider]: this.providerNames.get(providerId) ?? providerId,
            }
          : {}),
      };
      s = new Series(base, this.metrics);
      this.series.set(key, s);
    }
    return s;
  }
}
