import { isProviderFailure, type RouteSample } from './route-sample.js';

/** The router's settings that shape the statistics (from `router` and `router.breaker` in the config). */
export interface StatsSettings {
  /** EWMA weight of a new latency/TTFT sample. */
  readonly ewmaAlpha: number;
  /** How many recent successful samples the p50/p95 are computed over. */
  readonly windowSamples: number;
  /** How far back the error rate looks. */
  readonly windowMs: number;
}

export interface StatsSnapshot {
  /** Latency and TTFT of successful attempts: EWMA and percentiles over the sample window, rounded to 1 ms. */
  readonly latencyEwmaMs: number | null;
  readonly latencyP50Ms: number | null;
  readonly latencyP95Ms: number | null;
  readonly ttftEwmaMs: number | null;
  readonly ttftP50Ms: number | null;
  readonly ttftP95Ms: number | null;
  /** Attempts (failures and successes) inside the error window. */
  readonly windowSamples: number;
  readonly windowFailures: number;
  /** windowFailures / windowSamples, 0 when the window is empty. */
  readonly errorRate: number;
  readonly consecutiveFailures: number;
  /** Description of the last provider failure, e.g. "HTTP 500" or "timeout". */
  readonly lastFailure: string | null;
  /** ms epoch until which the provider asked us to back off (429 + retry-after); null when not limited. */
  readonly rateLimitedUntil: number | null;
  readonly retryAfterMs: number | null;
}

/** The error window is kept as this many time buckets: error rates are exact to one bucket's width. */
const BUCKETS = 10;

/** A fixed-size ring of numbers, for the percentile window. */
class Ring {
  private readonly values: number[] = [];
  private next = 0;

  constructor(private readonly size: number) {}

  push(v: number): void {
    if (this.values.length < this.size) this.values.push(v);
    else this.values[this.next] = v;
    this.next = (this.next + 1) % this.size;
  }

  percentiles(): { p50: number | null; p95: number | null } {
    if (this.values.length === 0) return { p50: null, p95: null };
    const sorted = [...this.values].sort((a, b) => a - b);
    return { p50: nearestRank(sorted, 0.5), p95: nearestRank(sorted, 0.95) };
  }
}

/** Nearest-rank percentile of a sorted, non-empty list. */
function nearestRank(sorted: readonly number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
}

function ewma(prev: number | null, sample: number, alpha: number): number {
  return prev === null ? sample : prev + alpha * (sample - prev);
}

function round(v: number | null): number | null {
  return v === null ? null : Math.round(v);
}

export function describeFailure(sample: Pick<RouteSample, 'outcome' | 'status'>): string {
  if (sample.status > 0) return `HTTP ${sample.status}`;
  return sample.outcome.replace('_', ' ');
}

/**
 * Passive statistics of one provider serving one model, folded from the edges' samples. Mutable for
 * speed (a window of a few hundred numbers per candidate), but without I/O or timers: time only comes
 * in through the samples' `at` and the `now` given to `snapshot`.
 */
export class ProviderStats {
  private latencyEwma: number | null = null;
  private ttftEwma: number | null = null;
  private readonly latency: Ring;
  private readonly ttft: Ring;
  /** Bucket start (ms epoch, multiple of the bucket width) -> [attempts, failures]. */
  private readonly buckets = new Map<number, [number, number]>();
  private consecutive = 0;
  private lastFailure: string | null = null;
  private limitedUntil: number | null = null;
  private retryAfter: number | null = null;
  private readonly bucketMs: number;

  constructor(private readonly settings: StatsSettings) {
    this.latency = new Ring(settings.windowSamples);
    this.ttft = new Ring(settings.windowSamples);
    this.bucketMs = Math.max(1, Math.ceil(settings.windowMs / BUCKETS));
  }

  record(sample: RouteSample): void {
    const failed = isProviderFailure(sample);
    const bucketStart = sample.at - (sample.at % this.bucketMs);
    const bucket = this.buckets.get(bucketStart) ?? [0, 0];
    bucket[0]++;
    if (failed) bucket[1]++;
    this.buckets.set(bucketStart, bucket);
    if (this.buckets.size > BUCKETS + 2) this.dropBucketsBefore(sample.at - this.settings.windowMs);

    if (sample.status === 429 && sample.retryAfterMs !== null && sample.retryAfterMs > 0) {
      const until = sample.at + sample.retryAfterMs;
      if (this.limitedUntil === null || until > this.limitedUntil) {
        this.limitedUntil = until;
        this.retryAfter = sample.retryAfterMs;
      }
    }

    if (failed) {
      this.consecutive++;
      this.lastFailure = describeFailure(sample);
      return;
    }
    this.consecutive = 0;
    if (sample.outcome !== 'ok') return; // a client error (400...) says nothing about speed
    this.latencyEwma = ewma(this.latencyEwma, sample.latencyMs, this.settings.ewmaAlpha);
    this.latency.push(sample.latencyMs);
    if (sample.ttftMs !== null) {
      this.ttftEwma = ewma(this.ttftEwma, sample.ttftMs, this.settings.ewmaAlpha);
      this.ttft.push(sample.ttftMs);
    }
  }

  /** Forgets the failures (window and streak), as when the breaker closes after a successful trial. */
  clearFailures(): void {
    this.buckets.clear();
    this.consecutive = 0;
  }

  /** What the breaker needs after each sample: cheap (no percentiles). */
  failureCounts(now: number): { consecutive: number; attempts: number; failures: number } {
    this.dropBucketsBefore(now - this.settings.windowMs);
    let attempts = 0;
    let failures = 0;
    for (const [n, f] of this.buckets.values()) {
      attempts += n;
      failures += f;
    }
    return { consecutive: this.consecutive, attempts, failures };
  }

  snapshot(now: number): StatsSnapshot {
    const { attempts, failures } = this.failureCounts(now);
    const lat = this.latency.percentiles();
    const tt = this.ttft.percentiles();
    const limited = this.limitedUntil !== null && this.limitedUntil > now;
    return {
      latencyEwmaMs: round(this.latencyEwma),
      latencyP50Ms: lat.p50,
      latencyP95Ms: lat.p95,
      ttftEwmaMs: round(this.ttftEwma),
      ttftP50Ms: tt.p50,
      ttftP95Ms: tt.p95,
      windowSamples: attempts,
      windowFailures: failures,
      errorRate: attempts === 0 ? 0 : failures / attempts,
      consecutiveFailures: this.consecutive,
      lastFailure: this.lastFailure,
      rateLimitedUntil: limited ? this.limitedUntil : null,
      retryAfterMs: limited ? this.retryAfter : null,
    };
  }

  /** Drops buckets that ended before `cutoff`; a bucket straddling it still counts (window exact to a bucket). */
  private dropBucketsBefore(cutoff: number): void {
    for (const start of this.buckets.keys()) if (start + this.bucketMs <= cutoff) this.buckets.delete(start);
  }
}
